"""Crumb & Co: pre-orders for a neighbourhood bakery in Bristol, built by its owner
Maggie with an AI assistant over a summer and autumn. Sign-in, collection windows,
daily stock, allergens, payment, no-shows, delivery, celebration cakes, reminders,
vouchers, staff roles, the kitchen's bake sheet, the Christmas closure; and chats that
use the same words for other things (the window sign, the market stall, the rota).

Written for the `vague` category: each question shares at most one content word with
the message that answers it, and names a chat that holds its words without answering."""

from __future__ import annotations

from tests.evaluation.corpus import A, App, Chat, Q, U, by_day, error, fillers, think, write

ACCOUNTS = Chat(
    "accounts",
    "Accounts",
    "2024-06-03",
    (
        U(
            "We need customer accounts for pre-orders. Our regulars are mostly older folks "
            "and they forget passwords all the time, Maggie's mum has six written on a "
            "post-it."
        ),
        A(
            think("Passwords, emailed links, SMS codes; cost and support load.")
            + "Three options: classic passwords with reset emails, a one-time link sent by "
            "email, or a code by text message. Texts cost money per message in the UK, "
            "and resets are the most common support request for small shops."
        ),
        U("The emailed link thing. Nobody has to remember anything."),
        A(
            "Done: customers log in with a one-time link we email them, valid for 15 "
            "minutes, and we store no passwords at all. The staff screens use the same link "
            "plus a code from an authenticator app.\n"
            + write("src/server/auth/magic-link.ts", "one-time email links"),
            "bk-login",
        ),
        U("My mum says the email took ages to arrive"),
        A(
            "It was queued behind the newsletter batch; transactional mail now goes through "
            "its own Postmark stream so it arrives within seconds."
        ),
        U("great, thanks"),
    ),
)

WINDOW_SIGN = Chat(
    "window-sign",
    "Shop window",
    "2024-06-10",
    (
        U(
            "I'm printing a sign for the shop window so people know about the ordering "
            "site. What should the sign say? Keep it short."
        ),
        A(
            "Something like 'Skip the queue: pre-order at crumbandco.uk'. A QR code on the "
            "sign that opens the ordering site helps people with phones in their hand."
        ),
        U("Good. Make the QR code bigger for the poster version, people read it from the street."),
        A(
            "Here's a printable A4 sign with the QR code at 6 cm and the opening hours "
            "underneath.\n" + write("public/print/window-sign.html", "printable window sign")
        ),
        U("Sam says the font looks like a bank. Something warmer?"),
        A("Switched the sign to Recoleta for the headline and kept Inter for the hours."),
    ),
)

MORNINGS = Chat(
    "mornings",
    "Mornings",
    "2024-06-17",
    (
        U(
            "Pre-orders are getting messy. Everyone turns up at 8 on Saturday and the "
            "counter is chaos, customers with orders queue behind walk-ins."
        ),
        A(
            "We could spread arrivals out: each order chooses a time window at checkout, "
            "with a cap on how many orders share one window."
        ),
        U("Yes. We open at 7 and most things are gone by 11."),
        A(
            "Set up: checkout now offers 30-minute windows from 7:00 to 11:00, each capped "
            "at 12 orders; full windows are greyed out and the confirmation email names the "
            "chosen window.\n" + write("src/app/checkout/slots.tsx", "window picker"),
            "bk-slots",
        ),
        U("Can staff override the cap for regulars?"),
        A("Staff can add an order to a full window from the admin screen; it shows as +1."),
    ),
)

SOURDOUGH = Chat(
    "sourdough",
    "Running out",
    "2024-06-24",
    (
        U(
            "Customers keep telling me every week they come in and can't get the sourdough "
            "bread, it's gone by 9. Sam can only bake 40 of those a morning with one oven."
        ),
        A(
            "Two sides to it: making more isn't possible without a second oven, so the "
            "ordering side should stop promising what isn't there. The simplest way is a "
            "number per product that counts down."
        ),
        U("Do that."),
        A(
            "Each product now has a daily quantity that staff set the evening before. When "
            "it reaches zero the item is labelled 'Gone for today' and can no longer be put "
            "in a basket; it comes back at midnight with the next quantity.\n"
            + write("src/server/catalogue/stock.ts", "daily quantities"),
            "bk-stock",
        ),
        U("And the counter? People still ask for bread we don't have."),
        A("I added a small screen view for the counter tablet listing what's left."),
    ),
)

MARKET = Chat(
    "market",
    "Saturday market",
    "2024-07-01",
    (
        U(
            "We also sell at the Harbourside market on Saturdays. Can the website show "
            "which loaf we'll bring to the stall? Last week we sold out of the rye loaf by "
            "ten and people were cross."
        ),
        A(
            "Added an 'At the market this Saturday' block on the homepage that staff fill in "
            "on Friday; it lists each loaf and cake we'll bring.\n"
            + write("src/app/home/market.tsx", "market block")
        ),
        U("Could it also show the stall number? The market moves us around."),
        A("Yes, there's a stall number field now, shown next to the map pin."),
        U("The map pin is in the river lol"),
        A("Fixed the coordinates; it points at the harbour steps now."),
    ),
)

ALLERGENS = Chat(
    "allergens",
    "Labels",
    "2024-07-08",
    (
        U(
            "Trading standards came by. They want the fourteen allergens shown for "
            "everything we list, not just on the paper labels."
        ),
        A(
            "Every product now carries the fourteen UK allergen flags; the product page "
            "lists them in bold, and the menu filter hides anything with a flag the shopper "
            "ticked.\n" + write("src/server/catalogue/allergen-flags.ts", "allergen flags"),
            "bk-allergens",
        ),
        U("Does the filter remember what they ticked?"),
        A("It does, per account, and for guests for the browser session."),
    ),
)

AUTUMN_MENU = Chat(
    "autumn-menu",
    "Autumn menu",
    "2024-09-02",
    (
        U(
            "Sam is adding a nut and seed loaf for autumn. People who eat it at the "
            "tasting say it's the best thing we make. Can we feature it?"
        ),
        A(
            "I put it first on the homepage with the new autumn photo, and the nut and seed "
            "loaf gets its own badge.\n" + write("src/app/home/featured.tsx", "featured loaf")
        ),
        U(
            "Chrome shows a warning when I upload the photo, something about the size. Also "
            "a customer with an allergy asked if it has sesame."
        ),
        A(
            error("Image exceeds 10 MB")
            + " The photo was 14 MB; uploads are resized in the browser now so the warning "
            "is gone. Sesame is in the seed mix, I've noted it in the description."
        ),
    ),
)

PAYMENT = Chat(
    "payment",
    "Checkout",
    "2024-07-15",
    (
        U("Should people pay when they collect, or before? Some just don't show up."),
        A(
            "Paying at checkout protects you from no-shows and speeds up the counter; paying "
            "on collection keeps the ordering friendlier for regulars who like cash."
        ),
        U("Before. Cash is more trouble than it's worth."),
        A(
            "Orders are now paid by card at checkout through Stripe, including Apple Pay "
            "and Google Pay; cash on collection was dropped.\n"
            + write("src/server/payments/checkout.ts", "card payment at checkout"),
            "bk-payment",
        ),
        U("What does Stripe charge us?"),
        A("1.5% + 20p for UK cards; it comes out of each payout."),
    ),
)

REPORTS = Chat(
    "reports",
    "Weekly numbers",
    "2024-07-22",
    (
        U(
            "How much money did the shop take this week from online orders versus "
            "walk-ins? I want to see it up front when I open the admin."
        ),
        A(
            "The admin home now opens on a weekly summary: online orders, their total, and "
            "the counter takings you enter by hand each evening.\n"
            + write("src/app/admin/summary.tsx", "weekly summary")
        ),
        U("Can it compare with last week?"),
        A("Added the change against the previous week in small grey text under each figure."),
    ),
)

UNCOLLECTED = Chat(
    "uncollected",
    "Leftovers",
    "2024-07-29",
    (
        U(
            "Three orders sat on the shelf all Saturday. What should we do with them, and "
            "with the people?"
        ),
        A(
            "Two questions: what happens to the food, and whether repeated misses change "
            "anything for the account."
        ),
        U("Food goes on the reduced shelf. Warn them, and pause them if it keeps happening."),
        A(
            "Uncollected orders: at 11:30 they're marked abandoned, the items go to the "
            "reduced shelf and the card is still charged; after a third one the account is "
            "paused for a month.",
            "bk-abandoned",
        ),
        U("ok"),
    ),
)

DELIVERY = Chat(
    "delivery",
    "Delivery",
    "2024-08-05",
    (
        U("Offices keep asking if we can bring things to them. Can we?"),
        A(
            "Possible with our own van on quiet days. We'd limit it by postcode so the "
            "rounds stay short."
        ),
        U("Thursday to Saturday. Central Bristol only."),
        A(
            "Delivery is offered Thursday to Saturday for postcodes BS1 to BS8 only, £3.50 a "
            "drop and free above £25.\n" + write("src/server/delivery/zones.ts", "postcode zones"),
            "bk-delivery",
        ),
        U("Good"),
    ),
)

CELEBRATIONS = Chat(
    "celebrations",
    "Big orders",
    "2024-08-12",
    (
        U(
            "We get wedding and birthday cake requests by Instagram DM and they get lost. "
            "Sam will drive a cake over himself if it's a big one."
        ),
        A(
            "A proper form would keep them in one place with what you need to quote. "
            "What do you ask people for today?"
        ),
        U("The date, how many people, flavour and what they want to spend."),
        A(
            "Custom cake requests now go through a form: date, servings, flavour and "
            "budget. Maggie replies within two days with a quote, and a 30% deposit holds "
            "the date.\n" + write("src/app/custom/page.tsx", "custom cake form"),
            "bk-custom",
        ),
        U("Can the form take a photo for inspiration?"),
        A("Yes, up to three reference photos."),
    ),
)

ANNIVERSARY = Chat(
    "anniversary",
    "Ten years",
    "2024-08-19",
    (
        U(
            "We turn ten in September! Add a banner for the celebration: Sam will bake free "
            "cupcakes for everyone who comes in that Saturday."
        ),
        A(
            "Added a banner for the tenth-birthday celebration on every page until 21 "
            "September.\n" + write("src/components/Banner.tsx", "anniversary banner")
        ),
        U("Make it yellow, the brand yellow."),
        A("Done, #F6C544 with dark text for contrast."),
    ),
)

STAFF = Chat(
    "staff",
    "Staff accounts",
    "2024-08-26",
    (
        U(
            "Sam needs to see the orders but I don't want him seeing the money side or "
            "people's addresses. Priti at the counter needs the day's collections."
        ),
        A(
            "Sam's account has the kitchen role: he sees tomorrow's quantities per product "
            "but not takings or customer details. Priti has the counter role: today's "
            "collections and marking them handed over.\n"
            + write("src/server/auth/roles.ts", "kitchen and counter roles"),
            "bk-roles",
        ),
        U("perfect"),
    ),
)

HIRING = Chat(
    "hiring",
    "Jobs",
    "2024-09-09",
    (
        U(
            "We're hiring a second baker for weekends. Can the admin show me applications, "
            "and can we put a jobs banner on the site?"
        ),
        A(
            "Added a jobs page with a short form; applications land in a new admin list "
            "for you only.\n" + write("src/app/jobs/page.tsx", "jobs page")
        ),
        U("Only me, yes. Sam shouldn't see who applied."),
        A("Only the owner role can open the applications list."),
    ),
)

BAKE_SHEET = Chat(
    "bake-sheet",
    "Evenings",
    "2024-09-16",
    (
        U(
            "Sam writes his list for the morning by hand from the orders screen and gets it "
            "wrong when it's busy."
        ),
        A(
            "Every evening at 20:00 the system totals tomorrow's orders per product and "
            "prints a sheet for the kitchen, grouped by dough.\n"
            + write("src/server/jobs/bake-sheet.ts", "evening bake sheet"),
            "bk-bake-sheet",
        ),
        U("Printer is in the kitchen, it's the Brother one"),
        A("Sent to the Brother HL-L2350DW over the local network; it retries if it's off."),
    ),
)

ROTA = Chat(
    "rota",
    "Rota",
    "2024-09-23",
    (
        U(
            "Can the site remind Sam about his early shifts? He starts at 4 in the morning "
            "and asked for next Monday off, so the rota for that day needs a cover."
        ),
        A(
            "Added a simple rota page; each shift can send its person a reminder the "
            "evening before, and days off show as gaps to fill.\n"
            + write("src/app/admin/rota.tsx", "staff rota")
        ),
        U("Can Priti swap shifts herself?"),
        A("She can offer a shift; you approve the swap."),
    ),
)

EMAILS = Chat(
    "emails",
    "What customers receive",
    "2024-09-30",
    (
        U(
            "We sent texts and emails and people got annoyed with both. One message before "
            "they come, please."
        ),
        A(
            "Texts were dropped: customers now get one email when the order is placed and a "
            "second one at 6am on the collection day listing what to pick up and their "
            "window.\n" + write("src/server/jobs/collection-email.ts", "collection email"),
            "bk-emails",
        ),
        U("fine"),
    ),
)

VOUCHERS = Chat(
    "vouchers",
    "Vouchers",
    "2024-10-07",
    (
        U("People ask at the till if they can give someone credit with us. Can we sell that?"),
        A(
            "Vouchers are on sale in £10, £20 and £50: each carries a 12-character code, can "
            "be redeemed at checkout for two years, and any balance carries over.\n"
            + write("src/server/payments/vouchers.ts", "vouchers"),
            "bk-vouchers",
        ),
        U("nice"),
    ),
)

INSTAGRAM = Chat(
    "instagram",
    "Instagram",
    "2024-10-09",
    (
        U(
            "A friend of mine who loves our pastries runs a food blog. She offered to post "
            "about us if we gift her a box. Can the site show her post?"
        ),
        A(
            "Added an Instagram embed on the homepage that shows her post under 'Friends "
            "of the bakery'.\n" + write("src/app/home/instagram.tsx", "instagram embed")
        ),
        U("And a link to our own account in the footer"),
        A("Added."),
    ),
)

CHRISTMAS_MENU = Chat(
    "christmas-menu",
    "Festive range",
    "2024-10-14",
    (
        U(
            "Sam wants mince pies and stollen on the Christmas menu. Orders for stollen "
            "should open in November because it needs to rest."
        ),
        A(
            "The Christmas menu section is ready with mince pies and stollen; stollen "
            "orders open on 1 November.\n" + write("src/app/menu/festive.tsx", "festive menu")
        ),
        U("Use a red theme for that section"),
        A("Done."),
    ),
)

CLOSURE = Chat(
    "closure",
    "End of year",
    "2024-10-15",
    (
        U("We shut from the 24th until the 2nd of January. The site should know."),
        A(
            "Between 24 December and 2 January the calendar blocks every date, and a banner "
            "explains we're shut and when we reopen.",
            "bk-closure",
        ),
        U("thanks!"),
    ),
)

REQUESTS = (
    "The basket icon is too small on phones.",
    "Can you make the product photos a bit bigger?",
    "The homepage loads slowly on my old iPad.",
    "Change the footer to show our new phone number.",
    "The croissant description has a typo.",
    "Make the buttons our brand yellow please.",
    "The admin list of orders should be sorted by window.",
    "Can we hide the cinnamon buns on Mondays?",
    "The about page needs a photo of the shop.",
    "Sam asked for bigger text on the kitchen screens.",
    "Fix the price of the seeded rye, it should be £4.20.",
    "The contact form goes to my old email address.",
    "Add our opening hours to the footer.",
    "The product page scrolls sideways on Android.",
    "Can you tidy up the admin menu?",
    "The logo is blurry on the receipts.",
)
REPLIES = (
    "Done, checked on mobile and desktop.",
    "Fixed: the image sizes were set in pixels, they scale now.",
    "Updated the text.",
    "Changed the colour and the hover state.",
    "The list is sorted now; the newest is at the top.",
    "Fixed the layout so nothing overflows.",
    "Done. Let me know if it needs anything else.",
    "The page now loads the photos lazily, so it's much quicker.",
)
PATHS = (
    "src/app/page.tsx",
    "src/app/menu/page.tsx",
    "src/components/Basket.tsx",
    "src/components/Footer.tsx",
    "src/app/admin/orders.tsx",
    "src/styles/globals.css",
)

CHATS = by_day(
    ACCOUNTS,
    WINDOW_SIGN,
    MORNINGS,
    SOURDOUGH,
    MARKET,
    ALLERGENS,
    AUTUMN_MENU,
    PAYMENT,
    REPORTS,
    UNCOLLECTED,
    DELIVERY,
    CELEBRATIONS,
    ANNIVERSARY,
    STAFF,
    HIRING,
    BAKE_SHEET,
    ROTA,
    EMAILS,
    VOUCHERS,
    INSTAGRAM,
    CHRISTMAS_MENU,
    CLOSURE,
    *fillers("misc", 12, 81, ("2024-06-01", "2024-10-20"), REQUESTS, REPLIES, PATHS),
)

QUESTIONS = (
    Q(
        "bak-01",
        ("vague", "decision"),
        "How do people sign into the ordering site?",
        "sign in ordering site",
        ("bk-login",),
        distractors=("window-sign",),
    ),
    Q(
        "bak-02",
        ("vague", "fact"),
        "When can customers come and get their bread?",
        "customers bread collection time",
        ("bk-slots",),
        distractors=("sourdough",),
    ),
    Q(
        "bak-03",
        ("vague",),
        "What happens on the website once a loaf sells out?",
        "loaf sold out website",
        ("bk-stock",),
        distractors=("market",),
    ),
    Q(
        "bak-04",
        ("vague",),
        "How does the site warn people who can't eat nuts?",
        "nut allergy warning",
        ("bk-allergens",),
        distractors=("autumn-menu",),
    ),
    Q(
        "bak-05",
        ("vague", "decision"),
        "Do we take the money for orders up front or in the shop?",
        "order money up front shop",
        ("bk-payment",),
        distractors=("reports",),
    ),
    Q(
        "bak-06",
        ("vague",),
        "What happens if somebody never turns up for their order?",
        "customer never turns up order",
        ("bk-abandoned",),
        distractors=("mornings",),
    ),
    Q(
        "bak-07",
        ("vague", "fact"),
        "How far away will we drive a cake to?",
        "cake drive distance",
        ("bk-delivery",),
        distractors=("celebrations",),
    ),
    Q(
        "bak-08",
        ("vague",),
        "How do people ask us for a special celebration bake?",
        "celebration bake enquiry",
        ("bk-custom",),
        distractors=("anniversary",),
    ),
    Q(
        "bak-09",
        ("vague",),
        "Do we remind people on the morning they're due in?",
        "remind morning collection",
        ("bk-emails",),
        distractors=("rota",),
    ),
    Q(
        "bak-10",
        ("vague",),
        "Can someone buy a present for a friend who loves our pastries?",
        "gift for a friend pastries",
        ("bk-vouchers",),
        distractors=("instagram",),
    ),
    Q(
        "bak-11",
        ("vague",),
        "What is the baker allowed to look at in the admin?",
        "baker admin access",
        ("bk-roles",),
        distractors=("hiring",),
    ),
    Q(
        "bak-12",
        ("vague",),
        "How does Sam find out how much to make for the next day?",
        "Sam next day amounts",
        ("bk-bake-sheet",),
        distractors=("rota",),
    ),
    Q(
        "bak-13",
        ("vague",),
        "Can customers order over Christmas?",
        "Christmas orders",
        ("bk-closure",),
        distractors=("christmas-menu",),
    ),
    Q(
        "bak-14",
        ("unanswerable",),
        "Did we ever set up a subscription for a weekly bread box?",
        "bread subscription every week",
        (),
        distractors=("sourdough",),
    ),
    Q(
        "bak-15",
        ("unanswerable",),
        "Have we translated the ordering site into Welsh?",
        "Welsh translation ordering site",
        (),
        distractors=("window-sign",),
    ),
    Q(
        "bak-16",
        ("unanswerable",),
        "Did we add a loyalty card where every tenth coffee is free?",
        "loyalty card free coffee",
        (),
    ),
)

APP = App(8, "bakery", CHATS, QUESTIONS)
