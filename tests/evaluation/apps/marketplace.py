"""Stallwise: a marketplace for local makers, built with an AI assistant over five
months. Sign-in, seller payouts, refunds (changed later), product search (changed
later), listing photos, shipping, reviews, a seller dashboard behind a compaction
summary, German legal pages, the launch."""

from __future__ import annotations

from tests.evaluation.corpus import A, App, Chat, Q, S, U, by_day, error, fillers, sql, think, write

AUTH = Chat(
    "auth",
    "Auth options",
    "2024-01-08",
    (
        U(
            "Okay, next thing: accounts. Buyers and sellers both need an account. I really "
            "don't want people to have to remember yet another password, most of our makers "
            "are not very techy."
        ),
        A(
            think("Compare passwords, magic links, passkeys, OAuth.")
            + "There are four realistic options for authentication here:\n"
            "1. Email + password (bcrypt/argon2), plus reset emails.\n"
            "2. Magic links by email.\n"
            "3. Passkeys (WebAuthn): the device's fingerprint or face unlock, nothing to "
            "remember.\n"
            "4. OAuth with Google/Apple.\n"
            "Magic links are easy but end up in spam folders and break when the link is "
            "opened on another device. Passkeys are the most phishing-resistant."
        ),
        U("Passkeys sound nice but what about older phones? Some of our sellers are 70."),
        A(
            "Decision proposal: passkeys as the primary authentication method using "
            "SimpleWebAuthn on the server, with a six-digit one-time code sent by email as "
            "the fallback for devices without platform authenticators. No passwords at all. "
            "Sign in with Apple can come later if buyers ask for it.",
            "auth-decision",
        ),
        U("Yes let's do that. What if somebody loses the phone with their passkey on it?"),
        A(
            "Account recovery: the email one-time code always works as a recovery path, and "
            "after signing in with a code the user is asked to register a new passkey on the "
            "new device. Old passkeys can be revoked from the security settings page. Support "
            "can also reset an account after checking the last order number.",
            "auth-recovery",
        ),
        U("ok build it"),
        A(
            "Added the WebAuthn registration and authentication ceremonies.\n"
            + write("src/server/auth/webauthn.ts", "passkey registration and login")
            + "\n"
            + write("src/server/auth/email-code.ts", "one-time email code fallback")
            + "\n"
            + sql(
                "passkey credentials table",
                "CREATE TABLE credentials (id text primary key, user_id int, public_key blob);",
            )
        ),
        U("Could someone spam the email code thing? Like request thousands of codes?"),
        A(
            "Yes, so requesting a code is rate limited: at most 5 codes per email address per "
            "hour and 20 per IP address per hour, using the Upstash rate limiter. Each code "
            "expires after 10 minutes and allows 3 attempts.",
            "auth-ratelimit",
        ),
        U("Great. Also the login page looks weird on small screens."),
        A(
            "Fixed the layout: the form is now a single column under 640px and the button "
            "is full width.\n" + write("src/app/login/page.tsx", "responsive login form")
        ),
        U("And change the wording, 'Authenticate' sounds scary. Just say 'Continue'."),
        A("Done, the button says Continue now.\n" + write("src/app/login/page.tsx", "wording")),
    ),
)

PAYOUTS = Chat(
    "payouts",
    "Stripe Connect setup",
    "2024-01-22",
    (
        U(
            "Sellers need to receive the money from their sales. How does that work with "
            "Stripe? I don't want to hold people's money myself."
        ),
        A(
            "Stripe Connect handles it: the marketplace is the platform and every seller "
            "has a connected account. Three flavours: Standard, Express, Custom. Express "
            "gives sellers a Stripe-hosted onboarding and dashboard and keeps compliance "
            "(identity checks, tax forms) on Stripe's side."
        ),
        U("Express then."),
        A(
            "Sellers onboard with Stripe Connect Express accounts; onboarding is a hosted "
            "link from the seller settings page. Charges are destination charges, so the "
            "buyer pays the platform and the seller's share is transferred automatically.",
            "connect-express",
        ),
        U("How much do we keep? I was thinking 10%."),
        A(
            "Most maker marketplaces sit between 5 and 15%. Since Stripe's own processing "
            "fee also comes out of the charge, 10% may feel steep for small items."
        ),
        U("Let's make it 8% plus 30 cents per order, and we eat the Stripe fees."),
        A(
            "Application fee set to 8% of the order total + 0.30 EUR per order, taken as the "
            "Connect application_fee_amount on each destination charge. Stripe processing "
            "fees are paid by the platform.",
            "platform-fee",
        ),
        U("And when does the seller actually see the money in their bank?"),
        A(
            "Payout schedule: automatic weekly payouts every Monday for the available "
            "balance. New sellers have a 7-day delay on their first payouts during their "
            "first 30 days, which protects against fraud. Sellers can see upcoming transfers "
            "in their Express dashboard.",
            "payout-schedule",
        ),
        U("ok. add it"),
        A(
            write("src/server/payments/connect.ts", "connected accounts and onboarding links")
            + "\n"
            + write("src/server/payments/checkout.ts", "destination charges with fee")
            + "\nConnect onboarding and checkout are wired up."
        ),
        U("The onboarding link expired when I tested it the next day"),
        A(
            error("StripeInvalidRequestError: This account link has expired")
            + " Account links are single-use and short-lived; the settings page now creates "
            "a fresh link on every click instead of storing one."
        ),
    ),
)

REFUNDS = Chat(
    "refunds",
    "Returns and refunds",
    "2024-02-05",
    (
        U("We need a way for buyers to return stuff. What's the usual approach?"),
        A(
            "Typical flow: the buyer opens a return request from the order page, the seller "
            "approves or declines, the item is sent back, then the refund is issued through "
            "Stripe (refunding the destination charge and reversing the transfer)."
        ),
        U("How long should buyers have?"),
        A("EU distance-selling rules give consumers 14 days to withdraw, so 14 days minimum."),
        U("14 days then, counted from delivery."),
        A(
            "Refund policy: buyers can request a refund within 14 days of delivery; the "
            "seller approves or declines it; partial refunds are allowed; the platform fee "
            "is refunded proportionally.",
            "refund-policy-v1",
        ),
        U("Build the screens please"),
        A(
            write("src/app/orders/[id]/return/page.tsx", "return request form")
            + "\n"
            + write("src/server/payments/refunds.ts", "refunds with transfer reversal")
            + "\nThe return request page and the seller's approval screen are live."
        ),
        U("What if the seller already got paid out?"),
        A(
            "The transfer reversal pulls the amount back from the seller's Stripe balance; if "
            "it's negative, Stripe debits the seller's bank account later."
        ),
    ),
)

SEARCH = Chat(
    "search",
    "Product search",
    "2024-02-19",
    (
        U("Search on the shop is bad. Typing 'ceramic mug' finds nothing if it says 'mugs'."),
        A(
            "Right now it's a plain ILIKE over titles. Options: Postgres full-text search, "
            "Algolia, Meilisearch, Typesense. Meilisearch and Typesense handle typos and "
            "plurals out of the box and are cheap to self-host."
        ),
        U("Algolia is too expensive for us. Meilisearch?"),
        A(
            "Decision: Meilisearch Cloud for product search, with typo tolerance, synonyms "
            "and facets on category, price range and location. Listings sync through a "
            "webhook on every change.",
            "search-v1",
        ),
        U("do it"),
        A(
            write("src/server/search/meili.ts", "Meilisearch client and index settings")
            + "\n"
            + write("src/server/search/sync.ts", "sync listings on change")
        ),
        U("Can we boost listings from sellers nearby?"),
        A("Added a geo sort: results within 25 km of the buyer come first when they allow it."),
    ),
)

IMAGES = Chat(
    "images",
    "Listing photos",
    "2024-03-01",
    (
        U("Sellers want to add more pictures of their items. Currently it's one."),
        A(
            "We can allow several photos per listing, with a drag-to-reorder gallery. "
            "Where to store them: S3, Cloudflare R2 or Cloudflare Images (which also resizes)."
        ),
        U("Cloudflare Images, whatever is least work. Max 8 per item?"),
        A(
            "Listings can have up to 8 photos, stored in Cloudflare Images; originals are "
            "capped at 2000px on the long side and served as WebP variants (thumbnail 320px, "
            "card 640px, full 1600px).",
            "photo-limit",
        ),
        U("Uploading a photo from my iPhone fails. Big ones only I think."),
        A(
            error("413 Payload Too Large: POST /api/listings/photos")
            + " The upload went through our API route, which has a 4.5 MB body limit. Photos "
            "now upload straight from the browser to Cloudflare with direct creator upload "
            "URLs, so the size limit is Cloudflare's 10 MB.",
            "upload-413",
        ),
        U("Could we automatically remove the background of product photos?"),
        A(
            "Possible with a background-removal API, but results on handmade items "
            "(textured, translucent glass) are poor and it costs per image. I'd skip it."
        ),
        U("Skip it then."),
    ),
)

SHIPPING = Chat(
    "shipping",
    "Shipping",
    "2024-03-12",
    (
        U("Let's figure out delivery costs. Some sellers ship everywhere, some only in the UK."),
        A(
            "Two models: calculated rates from a carrier API (EasyPost, Shippo) using weight "
            "and dimensions, or flat rates that each seller sets. Calculated rates need "
            "accurate parcel sizes, which makers rarely know."
        ),
        U("Flat rates. Per country?"),
        A(
            "Shipping: each seller sets a flat rate per zone (UK, EU, rest of world) and can "
            "turn zones off; an optional free-shipping threshold per seller; the cart "
            "charges shipping once per seller, not per item.",
            "shipping-rates",
        ),
        U(
            "Ines from the pottery stall asked if buyers could just collect from her "
            "workshop, her bowls break in the post."
        ),
        A(
            "Added local pickup as a delivery option: a seller can enable it with an address "
            "and opening hours, and the buyer then pays no shipping and gets a pickup code.",
            "local-pickup",
        ),
        U("Labels later maybe"),
        A("Noted: printing labels through EasyPost is on the later list.", "labels-later"),
    ),
)

REVIEWS = Chat(
    "reviews",
    "Reviews",
    "2024-03-25",
    (
        U("People keep asking for reviews on the shop pages."),
        A(
            "Proposal: star ratings from 1 to 5 with an optional text. Who may review: only "
            "verified buyers, i.e. an account with a delivered order of that listing. Should "
            "sellers be able to respond?"
        ),
        U("Yes but only once, no back and forth arguments in public.", "review-reply-once"),
        A(
            "Sellers can reply once to each review; the reply can be edited for 24 hours. "
            "Reviews open 3 days after delivery and close 60 days after.",
            "review-rules",
        ),
        U("What about rude reviews?"),
        A(
            "A moderation queue: reviews containing words from a blocklist, or reported by "
            "the seller, are hidden until an admin approves them.",
            "review-moderation",
        ),
        U("fine"),
        A(write("src/server/reviews/moderation.ts", "moderation queue") + "\nDone."),
    ),
)

DASHBOARD = Chat(
    "dashboard",
    "Seller dashboard",
    "2024-04-02",
    (
        S(
            "Seller dashboard",
            "We built the seller dashboard. It shows sales per week, the top five listings "
            "by revenue, views-to-orders conversion and pending payouts. Numbers come from "
            "a nightly rollup job at 02:00 UTC that refreshes a materialized view "
            "(seller_daily_stats); live numbers were rejected because the queries were too "
            "slow on the orders table.",
            "dashboard-summary",
        ),
        U("The chart on the dashboard shows last week twice"),
        A(
            "The week buckets used local time on the server and UTC in the view; both use "
            "UTC now.\n" + write("src/app/seller/dashboard/chart.tsx", "UTC week buckets")
        ),
        U("Can sellers download the numbers?"),
        A("Added a CSV export of the weekly sales table on the dashboard."),
    ),
)

REFUNDS_CHANGE = Chat(
    "refunds-change",
    "Refund window",
    "2024-04-10",
    (
        U(
            "We got a bunch of complaints. Buyers say 14 days is too short for gifts, and "
            "two sellers just never answered return requests so buyers were stuck."
        ),
        A(
            "Two changes would address both: a longer return window, and a deadline for "
            "sellers to respond."
        ),
        U("30 days. And if the seller doesn't answer, just refund automatically."),
        A(
            "Updated refund policy: buyers now have 30 days after delivery to request a "
            "refund (this replaces the 14-day rule). If a seller does not respond within 72 "
            "hours, the refund is approved automatically and the seller is notified.",
            "refund-policy-v2",
        ),
        U("Sellers will hate that"),
        A(
            "We can send the seller reminders at 24 and 48 hours before the automatic "
            "approval so it rarely happens."
        ),
        U("yes add those reminders"),
        A(write("src/server/jobs/refund-reminders.ts", "refund deadline reminders")),
    ),
)

LEGAL_DE = Chat(
    "legal-de",
    "Rechtstexte für Deutschland",
    "2024-04-16",
    (
        U(
            "Wir haben jetzt Verkäufer aus Deutschland. Brauchen wir ein Impressum und eine "
            "Widerrufsbelehrung?"
        ),
        A(
            "Ja: jede gewerbliche Verkäuferseite braucht ein Impressum, und Käufer müssen "
            "vor dem Kauf die Widerrufsbelehrung sehen. Die Texte liegen jetzt unter "
            "content/legal/de/widerrufsbelehrung.md und werden im Checkout verlinkt.",
            "legal-de",
        ),
        U("Und die Verkäufer tragen ihr Impressum selbst ein?"),
        A(
            "Genau, ein Pflichtfeld in den Verkäufereinstellungen für deutsche Verkäufer.",
            "impressum-field",
        ),
    ),
)

LAUNCH = Chat(
    "launch",
    "Launch checklist",
    "2024-04-22",
    (
        U("We're close. Let's make a launch checklist."),
        A(
            "Checklist draft: payments in live mode, legal pages, error monitoring, backups, "
            "seller onboarding, a status page, support inbox."
        ),
        U(
            "Soft launch is Monday 6 May with the 40 sellers from the Leeds makers market. "
            "Public launch after two weeks if nothing explodes."
        ),
        A(
            "Noted: soft launch on 6 May 2024 with 40 sellers from the Leeds makers market; "
            "public launch planned two weeks later, around 20 May.",
            "launch-date",
        ),
        U(
            "Marco will do the seller onboarding calls, he knows most of them from the "
            "market. Can you give him an admin account?",
            "marco-calls",
        ),
        A(
            "Created an admin invite for Marco with the support role: he can impersonate "
            "sellers for onboarding, but can't issue refunds or change fees.",
            "marco-admin",
        ),
        U("Monitoring?"),
        A(
            "Sentry for errors and Better Stack for uptime, with alerts to the team channel.",
            "monitoring",
        ),
        U("we'll also need backups right"),
        A(
            "Neon keeps point-in-time restore for 7 days; I added a nightly pg_dump to R2 "
            "kept for 30 days as a second copy.",
            "backups",
        ),
    ),
)

SEARCH_CHANGE = Chat(
    "search-change",
    "Search costs",
    "2024-05-02",
    (
        U(
            "The Meilisearch bill went up a lot and twice this week listings went missing "
            "from results until I resynced by hand."
        ),
        A(
            "The webhook sync drops updates when a deploy restarts the worker. Since the "
            "catalogue is small (about 3,000 listings), Postgres can do this on its own."
        ),
        U("Move it into Postgres then. One less thing."),
        A(
            "Product search now runs in Postgres: a tsvector column with English stemming "
            "plus pg_trgm similarity for typos, ranked with ts_rank. Meilisearch is removed "
            "along with the sync webhook, which cut cost and the missing-listing bugs.",
            "search-v2",
        ),
        U("And the nearby boost?"),
        A("Kept, using earthdistance in the same query."),
    ),
)

REQUESTS = (
    "Can you make the header sticky on the shop page?",
    "The button on the listing page is misaligned.",
    "Change the font on the homepage to something friendlier.",
    "Add a banner for the spring market.",
    "The cart page shows the wrong total when I remove an item.",
    "Sellers say the listing editor is slow to save.",
    "Make the footer links go to the right pages.",
    "Can we show the seller's location on each card?",
    "Fix the error when you open an order with no items.",
    "The search box overlaps the logo on tablets.",
    "Please add a favourites button to listings.",
    "Users want to see their past orders sorted by date.",
    "The category page takes ages to load.",
    "Make the checkout page use our brand colours.",
    "Add alt text to the product images.",
    "The seller profile page needs a cover photo.",
    "Can you add pagination to the orders table?",
    "Time to clean up the settings page, it's a mess.",
    "I want to meet the sellers' needs better, add a FAQ page for them.",
    "Going through the pages I noticed typos on the about page.",
    "The refund button on the order page is grey, make it our red.",
    "Sellers asked for the payouts page to show the currency symbol.",
    "Move the search bar into the header on mobile.",
    "The photo gallery arrows are hard to tap on phones.",
    "Add a little van icon next to the delivery estimate.",
    "Reviews should show the date they were written.",
    "On the seller dashboard the numbers are cut off on small phones.",
    "The passkey prompt text is confusing, can you rewrite it?",
    "Add a 'report this listing' link under the reviews.",
    "The Stripe logo in the checkout footer is blurry.",
    "Show the launch banner only to signed-in sellers.",
    "The return request email has a broken link.",
    "Buyers can't find the search filters for price.",
    "Make the seller onboarding checklist a bit friendlier.",
)
REPLIES = (
    "Done. I updated the component and checked it on mobile and desktop.",
    "Fixed: the state wasn't reset when the item was removed, so the total was stale.",
    "I changed the layout to a grid and the page now looks consistent.",
    "Updated the styles; the button now uses the primary colour and has a hover state.",
    "The page was fetching every listing; it now loads 24 at a time.",
    "Added it. Let me know if the wording needs to change.",
    "The error came from a missing null check on the order; it's handled now.",
    "Moved the data loading to the server component so the page renders faster.",
    "I went through the pages and fixed the broken links.",
    "Done, the time it takes to save went from about 3 seconds to under one.",
    "Changed the colour; refunds still go through the same flow.",
    "The payouts page now formats amounts in the seller's currency.",
    "Search results now show the first photo and the price.",
    "Fixed the wording in the shipping settings.",
    "Done: the reviews list is sorted newest first now.",
)
PATHS = (
    "src/app/page.tsx",
    "src/app/cart/page.tsx",
    "src/components/ListingCard.tsx",
    "src/components/Header.tsx",
    "src/app/seller/[id]/page.tsx",
    "src/app/orders/page.tsx",
    "src/styles/globals.css",
)

CHATS = by_day(
    AUTH,
    PAYOUTS,
    REFUNDS,
    SEARCH,
    IMAGES,
    SHIPPING,
    REVIEWS,
    DASHBOARD,
    REFUNDS_CHANGE,
    LEGAL_DE,
    LAUNCH,
    SEARCH_CHANGE,
    *fillers("misc", 30, 11, ("2024-01-03", "2024-05-20"), REQUESTS, REPLIES, PATHS),
)

QUESTIONS = (
    Q(
        "mkt-01",
        ("vocabulary", "decision"),
        "How do people sign in to the shop now, did we end up using passwords?",
        "sign in login method",
        ("auth-decision",),
    ),
    Q(
        "mkt-02",
        ("fact",),
        "What happens when somebody loses the phone that has their passkey?",
        "lost passkey device recovery",
        ("auth-recovery",),
    ),
    Q(
        "mkt-03",
        ("possessive", "fact"),
        "What's the limit on how many email codes someone can request?",
        "email code rate limit",
        ("auth-ratelimit",),
    ),
    Q(
        "mkt-04",
        ("vocabulary",),
        "How often do sellers get their money?",
        "seller money schedule",
        ("payout-schedule",),
    ),
    Q(
        "mkt-05",
        ("vocabulary", "fact"),
        "How much does the marketplace take from each sale?",
        "marketplace commission percentage",
        ("platform-fee",),
    ),
    Q(
        "mkt-06",
        ("decision", "names"),
        "Which kind of Stripe account do sellers get and why?",
        "Stripe Connect account type sellers",
        ("connect-express",),
    ),
    Q(
        "mkt-07",
        ("superseded",),
        "How many days do buyers have to ask for a refund?",
        "refund window days",
        ("refund-policy-v2",),
    ),
    Q(
        "mkt-08",
        ("superseded", "possessive"),
        "What happens if a seller doesn't answer a return request?",
        "seller doesn't respond return request",
        ("refund-policy-v2",),
    ),
    Q(
        "mkt-09",
        ("multi_chat",),
        "Summarise everything we decided about refunds, including any changes.",
        "refund policy decisions",
        ("refund-policy-v1", "refund-policy-v2"),
    ),
    Q(
        "mkt-10",
        ("superseded", "names"),
        "Are we still using Meilisearch for the shop search?",
        "Meilisearch product search",
        ("search-v2",),
    ),
    Q(
        "mkt-11",
        ("multi_chat", "superseded"),
        "Why did we switch search engines, and what did we use before?",
        "search engine switch reason",
        ("search-v1", "search-v2"),
    ),
    Q(
        "mkt-12",
        ("fact",),
        "How many pictures can a seller put on one item?",
        "photos per listing limit",
        ("photo-limit",),
    ),
    Q(
        "mkt-13",
        ("identifier",),
        "Why were big iPhone photo uploads failing with a 413?",
        "413 Payload Too Large upload",
        ("upload-413",),
    ),
    Q(
        "mkt-14",
        ("names", "possessive"),
        "What did Ines’s pottery stall ask us for?",
        "Ines pottery request",
        ("local-pickup",),
    ),
    Q(
        "mkt-15",
        ("vocabulary", "decision"),
        "How do we work out what buyers pay for delivery?",
        "delivery cost buyers",
        ("shipping-rates",),
    ),
    Q(
        "mkt-16",
        ("decision",),
        "Who is allowed to leave a review and can the seller answer it?",
        "reviews rules seller reply",
        ("review-rules",),
    ),
    Q(
        "mkt-17",
        ("vocabulary",),
        "What do we do about nasty comments people leave on items?",
        "nasty comments items",
        ("review-moderation",),
    ),
    Q(
        "mkt-18",
        ("when",),
        "When is the soft launch happening?",
        "soft launch date",
        ("launch-date",),
    ),
    Q(
        "mkt-19",
        ("names", "possessive"),
        "What can Marco's admin account do?",
        "Marco admin permissions",
        ("marco-admin",),
    ),
    Q(
        "mkt-20",
        ("possessive", "fact"),
        "What numbers are on the sellers' dashboard and where do they come from?",
        "seller dashboard metrics",
        ("dashboard-summary",),
    ),
    Q(
        "mkt-21",
        ("multilingual",),
        "Wo liegt die Widerrufsbelehrung?",
        "Widerrufsbelehrung",
        ("legal-de",),
    ),
    Q(
        "mkt-22",
        ("when", "fact"),
        "What time does the nightly stats job run?",
        "nightly rollup job time",
        ("dashboard-summary",),
    ),
    Q(
        "mkt-23",
        ("assistant_asks", "decision"),
        "Did we let sellers respond to reviews?",
        "sellers respond to reviews",
        ("review-reply-once",),
    ),
    Q(
        "mkt-24",
        ("multilingual",),
        "Wer trägt das Impressum der deutschen Verkäufer ein?",
        "Impressum Verkäufer",
        ("impressum-field",),
    ),
    Q(
        "mkt-25",
        ("names", "fact"),
        "Which service stores the photos sellers upload for their listings?",
        "listing photos storage service",
        ("photo-limit",),
    ),
    Q(
        "mkt-26",
        ("names",),
        "Who is going to do the onboarding calls with our sellers?",
        "seller onboarding calls",
        ("marco-calls",),
    ),
    Q(
        "mkt-27",
        ("names", "decision"),
        "What tools did we set up to watch for errors and downtime?",
        "monitoring errors uptime",
        ("monitoring",),
    ),
    Q(
        "mkt-28",
        ("superseded", "names"),
        "What does product search run on today?",
        "product search engine",
        ("search-v2",),
    ),
    Q(
        "mkt-29",
        ("fact",),
        "What happens to our platform fee when an order is refunded?",
        "platform fee refund",
        ("refund-policy-v1",),
    ),
    Q(
        "mkt-30",
        ("superseded",),
        "Do listings still get synced to search through a webhook?",
        "search sync webhook",
        ("search-v2",),
    ),
    Q(
        "mkt-31",
        ("names", "fact"),
        "Where do we keep database backups besides Neon?",
        "database backups",
        ("backups",),
    ),
    Q(
        "mkt-32",
        ("names",),
        "Which carrier service did we plan to use for printing shipping labels?",
        "shipping labels carrier",
        ("labels-later",),
    ),
    Q(
        "mkt-33",
        ("vague", "fact"),
        "How many pictures can go on each product page?",
        "product pictures page",
        ("photo-limit",),
        distractors=("misc-24",),
    ),
    Q(
        "mkt-34",
        ("vague",),
        "What do we do about rude comments on the shop pages?",
        "rude comments shop page",
        ("review-moderation",),
        distractors=("misc-27",),
    ),
    Q(
        "mkt-35",
        ("unanswerable",),
        "Did we ever set up a dark mode for the shop?",
        "dark mode shop",
        (),
    ),
    Q(
        "mkt-36",
        ("unanswerable",),
        "Can buyers pay with PayPal at checkout?",
        "PayPal checkout payment",
        (),
    ),
    Q(
        "mkt-37",
        ("unanswerable",),
        "Did we offer gift wrapping for orders?",
        "gift wrapping orders",
        (),
    ),
)

APP = App(1, "marketplace", CHATS, QUESTIONS)
