"""Shiftly: volunteer scheduling for a town food bank, built by its coordinator Grace
with an AI assistant over a year. Joining, reminders, dropping out, cold storage,
clients' data, dates on tins, supermarket surplus, referrals, the van, thanks,
languages, the trustees' report; and chats that use the same words for other things
(the opening days, the drivers' notes, the Christmas appeal, the compost, a grant).

Written for the `vague` category: each question shares at most one content word with
the message that answers it, and names a chat that holds its words without answering."""

from __future__ import annotations

from tests.evaluation.corpus import A, App, Chat, Q, U, by_day, fillers, think, write

ONBOARDING = Chat(
    "onboarding",
    "Newcomers",
    "2023-09-04",
    (
        U(
            "People email me saying they'd like to give a hand and then I forget to answer. "
            "I need a proper route in."
        ),
        A(
            think("A form, a short safety video, a call, then the rota.")
            + "A simple path: a form, a short safety video, a phone call with you, then the "
            "rota."
        ),
        U("That's it exactly."),
        A(
            "New helpers fill in a short form, watch the 10-minute safety video and are "
            "added to the rota by Grace after a phone chat.\n"
            + write("src/app/signup/page.tsx", "signup form"),
            "vl-onboarding",
        ),
        U("good"),
    ),
)

OPENING = Chat(
    "opening",
    "Wednesdays",
    "2023-09-11",
    (
        U(
            "The food bank will start opening on Wednesdays from October. We need help at "
            "the door and on the tables. Volunteers can join the WhatsApp group for it."
        ),
        A(
            "Added Wednesday sessions to the calendar from 4 October, with door and table "
            "roles, and a link to join the group on the sign-up page.\n"
            + write("src/server/calendar/sessions.ts", "wednesday sessions")
        ),
        U("thanks"),
    ),
)

DRIVERS = Chat(
    "drivers",
    "Van",
    "2023-09-18",
    (
        U(
            "A note to drivers: the Tuesday shift takes the van to Tesco first now. Put a "
            "reminder on the driver page. The helpers at the warehouse need a heads-up too, "
            "the day changes."
        ),
        A(
            "The driver page has a pinned reminder about the Tuesday route, and warehouse "
            "helpers see a banner about the day change.\n"
            + write("src/app/drivers/page.tsx", "driver notes")
        ),
        U("Also, who can drive it? The insurer asked."),
        A(
            "Only people over 25 who've held a licence for three years can drive it, and "
            "Grace adds them to the insurance first.",
            "vl-van",
        ),
    ),
)

REMINDERS = Chat(
    "reminders",
    "Before a slot",
    "2023-09-25",
    (
        U("People forget they signed up. Can we nudge them?"),
        A(
            "Everyone gets a text 24 hours ahead of their slot with the address and the "
            "name of whoever is leading it.\n"
            + write("src/server/jobs/nudges.ts", "texts ahead of slots"),
            "vl-nudges",
        ),
        U("great"),
    ),
)

STANDBY = Chat(
    "standby",
    "Can't come",
    "2023-10-02",
    (
        U("When somebody pulls out I spend the morning phoning round."),
        A(
            "If someone can't make it they tap 'Can't come' up to 12 hours ahead; the slot "
            "is offered to the standby list by text and the first reply gets it.\n"
            + write("src/server/rota/standby.ts", "standby list"),
            "vl-standby",
        ),
        U("good"),
    ),
)

APPEAL = Chat(
    "appeal",
    "Christmas appeal",
    "2023-11-06",
    (
        U(
            "The Christmas appeal this year: people can help by dropping tins at the church. "
            "Last year volunteers wrapped hampers at the last minute, so we need numbers for "
            "the hamper count early."
        ),
        A(
            "Added an appeal page with a pledge form, so you get numbers early, and a "
            "hamper count on the admin home.\n" + write("src/app/appeal/page.tsx", "appeal")
        ),
        U("lovely"),
    ),
)

COLD = Chat(
    "cold",
    "Fridges",
    "2023-10-09",
    (
        U("The environmental health officer visited. We need records for the fridges."),
        A(
            "Fridge and freezer readings are logged twice a day on the tablet; anything "
            "above 5°C alerts the duty lead and the stock in it is quarantined.\n"
            + write("src/server/storage/readings.ts", "temperature log"),
            "vl-cold",
        ),
        U("ok"),
    ),
)

DONATIONS = Chat(
    "donations",
    "Donations",
    "2023-10-16",
    (
        U(
            "Someone brought chilled home-made food again. Is it safe to hand out? Tins are "
            "fine of course. Can the donations page say what we take?"
        ),
        A(
            "The donations page now lists what we take (tins, packets, toiletries) and "
            "what we can't (anything chilled or home-made).\n"
            + write("src/app/donate/page.tsx", "donations page")
        ),
        U("and a gift aid box? no, later"),
        A("Noted for later."),
    ),
)

CLIENTS = Chat(
    "clients",
    "Records",
    "2023-10-23",
    (
        U("The trustees asked what we hold about the people who come in."),
        A(
            "Client records hold only a first name, the referral number and household "
            "size; addresses stay with the referring agency.\n"
            + write("src/server/clients/model.ts", "client record"),
            "vl-clients",
        ),
        U("good"),
    ),
)

THANKS_PAGE = Chat(
    "thanks-page",
    "Notes",
    "2023-10-30",
    (
        U(
            "The families we serve wrote thank-you notes. Can we keep them on a page? With "
            "personal names taken out, and no personal information at all."
        ),
        A(
            "Added a notes page; names and any personal information are removed before a "
            "note is shown.\n" + write("src/app/notes/page.tsx", "thank-you notes")
        ),
        U("lovely"),
    ),
)

DATES = Chat(
    "dates",
    "Shelves",
    "2023-11-13",
    (
        U("We found tins from 2021 at the back of a shelf."),
        A(
            "Tins and packets are shelved by best-before; the app lists anything within two "
            "weeks of its date so it goes to the tables first.\n"
            + write("src/server/stock/dates.ts", "best-before list"),
            "vl-dates",
        ),
        U("good"),
    ),
)

COMPOST = Chat(
    "compost",
    "Garden",
    "2023-11-20",
    (
        U(
            "Vegetables that are going off go to the community garden compost, we never "
            "throw away anything. Can the app log the food waste we send there?"
        ),
        A(
            "Added a compost log: weight and date per drop-off, with a yearly total of food "
            "waste saved from the bin.\n" + write("src/app/compost/page.tsx", "compost log")
        ),
        U("nice"),
    ),
)

SURPLUS = Chat(
    "surplus",
    "Collections",
    "2023-11-27",
    (
        U("Which runs are regular now? I want the van schedule on the calendar."),
        A(
            "Tesco Extra and the Co-op on Mill Lane give surplus on Tuesdays and Fridays; "
            "two drivers take the van to collect it at 4pm.\n"
            + write("src/server/calendar/runs.ts", "regular runs"),
            "vl-surplus",
        ),
        U("good"),
    ),
)

FUNDRAISER = Chat(
    "fundraiser",
    "Bake sale",
    "2023-12-04",
    (
        U(
            "The supermarket on the high street has a community board; their shop manager "
            "said we can pickup the collection tin on Fridays. And the leftovers of the bake "
            "sale went to the hostel."
        ),
        A(
            "Added the collection tin pickup to Friday's runs and a bake sale total to the "
            "fundraising page.\n" + write("src/app/fundraising/page.tsx", "fundraising")
        ),
        U("thanks"),
    ),
)

REFERRALS = Chat(
    "referrals",
    "Vouchers",
    "2023-12-11",
    (
        U("Some people turn up without anything and I don't know what to say."),
        A(
            "Only people with a voucher from a GP, a school or Citizens Advice get a parcel, "
            "up to three times in six months.\n"
            + write("src/server/clients/vouchers.ts", "voucher check"),
            "vl-referrals",
        ),
        U("ok"),
    ),
)

GRANT = Chat(
    "grant",
    "Council grant",
    "2024-01-08",
    (
        U(
            "The council grant has eligibility criteria for food banks: we have to report "
            "how many food parcels we hand out. Can the app count them?"
        ),
        A(
            "Added a parcels counter per month on the admin home, so the eligibility "
            "criteria report is a copy and paste.\n"
            + write("src/app/admin/grant.tsx", "parcels counter")
        ),
        U("great"),
    ),
)

CELEBRATION = Chat(
    "celebration",
    "December",
    "2024-01-15",
    (
        U("How do we say thank you to the people who give their time?"),
        A(
            "Every December there's a dinner at St Mark's hall, and anyone reaching 50 "
            "shifts gets a mug with their name on it.\n"
            + write("src/server/jobs/milestones.ts", "50 shift milestone"),
            "vl-thanks",
        ),
        U("lovely"),
    ),
)

NEWSLETTER = Chat(
    "newsletter",
    "Newsletter",
    "2024-01-22",
    (
        U(
            "The newsletter should show how many helpers came this month, and there's a "
            "note of appreciation from the mayor to all our volunteers."
        ),
        A(
            "Added the helper count to the newsletter template and the mayor's note of "
            "appreciation at the top.\n" + write("src/emails/newsletter.tsx", "newsletter")
        ),
        U("ok"),
    ),
)

LANGUAGES = Chat(
    "languages",
    "Parcel lists",
    "2024-02-05",
    (
        U("Lots of our clients are new arrivals. Can the lists be in their language?"),
        A(
            "Parcel lists now print in English, Polish, Arabic and Tigrinya; the client's "
            "choice is stored with their referral.\n"
            + write("src/server/print/lists.ts", "lists in four languages"),
            "vl-languages",
        ),
        U("good"),
    ),
)

PAPERWORK = Chat(
    "paperwork",
    "Council forms",
    "2024-02-12",
    (
        U(
            "The council's forms are supposed to be in plain English but people read them "
            "wrong all the time, the language is confusing. Can the app fill them in?"
        ),
        A(
            "I can prefill the council's forms from the referral, so people only check and "
            "sign.\n" + write("src/server/print/council-forms.ts", "prefilled forms")
        ),
        U("please do"),
    ),
)

TRUSTEES = Chat(
    "trustees",
    "Trustees",
    "2024-03-04",
    (
        U("The trustees want a summary for the AGM every spring."),
        A(
            "A yearly report totals parcels, households and meals by month and is exported "
            "for the trustees each April.\n"
            + write("src/server/reports/yearly.ts", "yearly report"),
            "vl-report",
        ),
        U("good"),
    ),
)

REQUESTS = (
    "The rota page is hard to read on a phone.",
    "Can you make the sign-up button green?",
    "The calendar shows Sunday first, we want Monday.",
    "Add the church hall's address to the footer.",
    "There's a typo on the donations page.",
    "The admin home is slow in the mornings.",
    "Make the text bigger for older volunteers.",
    "Can the logo be a bit smaller on phones?",
    "Please tidy up the settings page.",
    "The print layout cuts off the last column.",
)
REPLIES = (
    "Done, checked on a phone.",
    "Fixed the layout; nothing overflows now.",
    "Updated the colours.",
    "Changed the week start to Monday.",
    "Done. Let me know if it needs anything else.",
    "The print stylesheet fits A4 now.",
)
PATHS = (
    "src/app/page.tsx",
    "src/app/rota/page.tsx",
    "src/components/Header.tsx",
    "src/app/admin/page.tsx",
    "src/styles/print.css",
)

CHATS = by_day(
    ONBOARDING,
    OPENING,
    DRIVERS,
    REMINDERS,
    STANDBY,
    APPEAL,
    COLD,
    DONATIONS,
    CLIENTS,
    THANKS_PAGE,
    DATES,
    COMPOST,
    SURPLUS,
    FUNDRAISER,
    REFERRALS,
    GRANT,
    CELEBRATION,
    NEWSLETTER,
    LANGUAGES,
    PAPERWORK,
    TRUSTEES,
    *fillers("misc", 10, 101, ("2023-09-01", "2024-03-20"), REQUESTS, REPLIES, PATHS),
)

QUESTIONS = (
    Q(
        "vol-01",
        ("vague",),
        "How does a newcomer start helping out at the food bank?",
        "join as a volunteer",
        ("vl-onboarding",),
        distractors=("opening",),
    ),
    Q(
        "vol-02",
        ("vague",),
        "Do helpers hear from us the day before they're on?",
        "shift reminder text",
        ("vl-nudges",),
        distractors=("drivers",),
    ),
    Q(
        "vol-03",
        ("vague",),
        "What if a volunteer drops out at the last minute?",
        "volunteer cancels last minute",
        ("vl-standby",),
        distractors=("appeal",),
    ),
    Q(
        "vol-04",
        ("vague",),
        "How do we make sure chilled donations stay safe to hand out?",
        "chilled food safety",
        ("vl-cold",),
        distractors=("donations",),
    ),
    Q(
        "vol-05",
        ("vague",),
        "What personal details do we keep about the families we serve?",
        "families personal information stored",
        ("vl-clients",),
        distractors=("thanks-page",),
    ),
    Q(
        "vol-06",
        ("vague",),
        "How do we avoid throwing away food that's going off?",
        "food waste expiry",
        ("vl-dates",),
        distractors=("compost",),
    ),
    Q(
        "vol-07",
        ("vague", "names"),
        "Which shops hand over their leftovers, and when?",
        "supermarket surplus pickup",
        ("vl-surplus",),
        distractors=("fundraiser",),
    ),
    Q(
        "vol-08",
        ("vague",),
        "Who can come to us for a food parcel?",
        "parcel eligibility criteria",
        ("vl-referrals",),
        distractors=("grant",),
    ),
    Q(
        "vol-09",
        ("vague", "fact"),
        "Who is allowed to take the van out?",
        "van driver requirements",
        ("vl-van",),
        distractors=("surplus",),
    ),
    Q(
        "vol-10",
        ("vague",),
        "Do we do anything to show appreciation for our helpers?",
        "volunteer appreciation",
        ("vl-thanks",),
        distractors=("newsletter",),
    ),
    Q(
        "vol-11",
        ("vague",),
        "Can people who don't read English understand the paperwork?",
        "translated forms languages",
        ("vl-languages",),
        distractors=("paperwork",),
    ),
    Q(
        "vol-12",
        ("vague",),
        "How do we know how many people we helped this year?",
        "annual numbers helped",
        ("vl-report",),
        distractors=("appeal",),
    ),
    Q(
        "vol-13",
        ("unanswerable",),
        "Did we set up Gift Aid on donations?",
        "Gift Aid donations",
        (),
        distractors=("donations",),
    ),
    Q(
        "vol-14",
        ("unanswerable",),
        "Is there a volunteer app in the App Store?",
        "volunteer mobile app store",
        (),
    ),
    Q(
        "vol-15",
        ("unanswerable",),
        "Do we deliver food parcels to people who can't leave their homes?",
        "home delivery food parcels housebound",
        (),
        distractors=("grant",),
    ),
)

APP = App(10, "volunteers", CHATS, QUESTIONS)
