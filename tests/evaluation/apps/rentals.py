"""Keyhold: a tenant portal for a small landlord, Tom Reyes, who lets nine flats in
Leeds, built with an AI assistant over spring and summer. Fault reports, rent
collection, deposits, viewings, visits, neighbour disputes, renewals, spare keys, bins,
pets, moving out, tradespeople; and chats that use the same words for other things
(the gas safety check, shared bills, the council licence, the car park).

Written for the `vague` category: each question shares at most one content word with
the message that answers it, and names a chat that holds its words without answering."""

from __future__ import annotations

from tests.evaluation.corpus import A, App, Chat, Q, U, by_day, fillers, sql, think, write

FAULTS = Chat(
    "faults",
    "Tickets",
    "2024-02-05",
    (
        U(
            "Right now tenants text me at all hours about anything that stops working and I "
            "lose track. I want it all in one place."
        ),
        A(
            think("A ticket model with urgency levels; paging only for emergencies.")
            + "A ticket per problem, with a photo and an urgency level, would give you a "
            "list you can work through. Emergencies could still reach you at night."
        ),
        U("Yes, but only real emergencies at night."),
        A(
            "Tenants now log a fault from the portal with a photo; it lands as a ticket, and "
            "urgent ones (no heating, water coming through a ceiling, a lock that won't "
            "close) page Tom's phone at any hour.\n"
            + write("src/server/tickets/create.ts", "fault tickets")
            + "\n"
            + sql("tickets", "CREATE TABLE tickets (id serial, flat int, urgent bool);"),
            "rt-faults",
        ),
        U("and the rest?"),
        A("Everything else waits for the morning digest at 8:00."),
    ),
)

GAS_CHECK = Chat(
    "gas-check",
    "Gas safety",
    "2024-02-12",
    (
        U(
            "The annual gas checks are due. The boiler report for flat 3 says it's fine, "
            "but someone from the engineer's office has to tell the tenants a date."
        ),
        A(
            "I added the gas safety certificates to each flat's page with the expiry date, "
            "and a letter template to tell tenants when the engineer is coming.\n"
            + write("src/app/flats/[id]/certificates.tsx", "gas certificates")
        ),
        U(
            "Also the broken boiler in flat 7 last winter, and the pipe leak there, took a "
            "week to fix. Put the history on the flat's page."
        ),
        A("The flat page now lists past jobs with their dates and costs."),
    ),
)

RENT = Chat(
    "rent",
    "Getting paid",
    "2024-02-19",
    (
        U("Half the tenants pay by standing order, two by cash, one forgets every time."),
        A(
            "Options: keep standing orders and reconcile bank statements, or collect with "
            "Direct Debit so the money is pulled on a fixed date."
        ),
        U("Direct Debit. I'm done chasing."),
        A(
            "Rent is collected by Direct Debit through GoCardless on the 1st; if a "
            "collection fails it retries after three days and Tom gets an email.\n"
            + write("src/server/billing/gocardless.ts", "direct debit"),
            "rt-rent",
        ),
        U("what does gocardless cost"),
        A("1% + 20p per collection, capped at £4."),
    ),
)

SHARED_BILLS = Chat(
    "shared-bills",
    "Internet in flat 2",
    "2024-02-26",
    (
        U(
            "The tenants in flat 2 want to split the monthly internet payment three ways. "
            "Can the portal show each tenant what to pay?"
        ),
        A(
            "Added a shared bills card on the flat page: the monthly total, each tenant's "
            "share and who has marked theirs as paid.\n"
            + write("src/app/flats/[id]/bills.tsx", "shared bills")
        ),
        U("I don't want to handle the money myself though"),
        A("It only shows the split; they pay the provider directly."),
    ),
)

DEPOSITS = Chat(
    "deposits",
    "Tenancy records",
    "2024-03-04",
    (
        U("Last year I registered a deposit late and got a warning letter. Never again."),
        A(
            "Deposits are registered with the DPS within 30 days of the start date, and the "
            "certificate is attached to the tenancy record automatically.\n"
            + write("src/server/tenancy/dps.ts", "DPS registration"),
            "rt-deposits",
        ),
        U("good"),
    ),
)

MOVING_IN = Chat(
    "moving-in",
    "Checklist for new tenants",
    "2024-03-11",
    (
        U(
            "New tenants moving in always ask the same things. Can we give them a checklist? "
            "Meter readings first, they save money on the first bill, and the process for "
            "setting up council tax."
        ),
        A(
            "Added a move-in checklist to the tenant's home screen: meter readings with "
            "photos, council tax, the internet provider, and where the stopcock is.\n"
            + write("src/app/tenant/checklist.tsx", "move-in checklist")
        ),
        U("They also move away without telling the council, can the list cover that?"),
        A("Added a line about updating the council when they leave."),
    ),
)

VIEWINGS = Chat(
    "viewings",
    "Bookings",
    "2024-03-18",
    (
        U(
            "I spend hours on the phone setting up times with strangers who then don't "
            "come. There must be a better way."
        ),
        A(
            "Prospective renters pick a 20-minute slot from Tom's calendar on the listing "
            "page; the booking sends them the address a day before and asks them to confirm "
            "or free the slot.\n" + write("src/app/listing/book.tsx", "booking slots"),
            "rt-viewings",
        ),
        U("Nice."),
    ),
)

VOIDS = Chat(
    "voids",
    "Void costs",
    "2024-03-25",
    (
        U(
            "The empty flat 5 costs me £900 a month. People see it on Rightmove but the "
            "photos are dark. Can the site help?"
        ),
        A(
            "Added a listing page per empty flat with a photo gallery and a floor plan; "
            "people who see it on Rightmove land there.\n"
            + write("src/app/listing/[id]/page.tsx", "listing page")
        ),
        U("I'll redo the photos on Saturday"),
        A("Upload them from the flat page and they'll replace the old ones."),
    ),
)

VISITS = Chat(
    "visits",
    "Twice a year",
    "2024-04-01",
    (
        U("I should be checking on the flats more, but tenants hate surprise visits."),
        A(
            "Every six months a check visit is booked with 48 hours' written notice through "
            "the portal; the tenant can propose another time within the same week.\n"
            + write("src/server/tenancy/visits.ts", "six-monthly visits"),
            "rt-visits",
        ),
        U("ok"),
    ),
)

LICENCE = Chat(
    "licence",
    "Council licence",
    "2024-04-08",
    (
        U(
            "The Headingley property needs an HMO licence from the council. Their "
            "inspection is in May. Can you look at what documents the portal should keep "
            "for the property?"
        ),
        A(
            "Added a documents section per property: the licence, its inspection date, fire "
            "alarm test records and the floor plan. The council's form is linked.\n"
            + write("src/app/properties/documents.tsx", "property documents")
        ),
        U("good"),
    ),
)

DISPUTES = Chat(
    "disputes",
    "Flat 4 and flat 6",
    "2024-04-15",
    (
        U("Flat 4 and flat 6 are at war again. I don't want them to see each other's messages."),
        A(
            "Complaints between neighbours go to a private thread that only Tom and the "
            "person reporting can read; the other tenant is never told who raised it.\n"
            + write("src/server/tickets/private.ts", "private complaints"),
            "rt-disputes",
        ),
        U("Perfect."),
    ),
)

WELCOME = Chat(
    "welcome",
    "House rules",
    "2024-04-22",
    (
        U(
            "Can we put the house rules in the welcome pack for residents? Loud music after "
            "11pm, noise in the stairwell, bikes in the hallway."
        ),
        A(
            "The welcome pack page now has a house rules section: no loud music or other "
            "noise after 11pm, bikes in the shed, and the fire doors kept shut.\n"
            + write("src/app/tenant/welcome.tsx", "welcome pack")
        ),
        U("and the bin store code"),
        A("Added, shown only to signed-in residents."),
    ),
)

RENEWALS = Chat(
    "renewals",
    "End of tenancy",
    "2024-05-06",
    (
        U(
            "Two tenancies end in summer and I only remembered because a tenant asked. The "
            "portal should handle that."
        ),
        A(
            "Sixty days before a tenancy ends, the portal offers the tenant a new 12-month "
            "agreement with the rise capped at CPI; if they decline, the flat is listed.\n"
            + write("src/server/tenancy/renewals.ts", "renewal offers"),
            "rt-renewals",
        ),
        U("Good"),
    ),
)

CAR_PARK = Chat(
    "car-park",
    "Parking",
    "2024-05-13",
    (
        U(
            "The car park lease with the church next door runs out in December. Can the "
            "portal remind me about the renewal?"
        ),
        A(
            "Added the car park lease to your documents with a renewal reminder on 1 "
            "October, three months before it runs out.\n"
            + write("src/app/properties/documents.tsx", "car park lease")
        ),
        U("thanks"),
    ),
)

SPARES = Chat(
    "spares",
    "Lockbox",
    "2024-05-20",
    (
        U("I never know who has which set. The plumber had flat 2's for a week."),
        A(
            "Spare sets live in a numbered lockbox in the office; the portal logs who took "
            "which set and when it came back.\n"
            + write("src/server/lockbox/log.ts", "set sign-out log"),
            "rt-spares",
        ),
        U("nice"),
    ),
)

LOST_KEYS = Chat(
    "lost-keys",
    "Charges",
    "2024-05-27",
    (
        U(
            "A tenant lost their keys again. Can the portal show what we charge? £40 for an "
            "extra key, £120 if the lock has to change. We don't have a spare for every flat."
        ),
        A(
            "Added a charges page: an extra key £40, a lock change £120, a call-out for "
            "keys left inside £30.\n" + write("src/app/tenant/charges.tsx", "charges page")
        ),
        U("ok"),
    ),
)

BINS = Chat(
    "bins",
    "Council calendar",
    "2024-06-03",
    (
        U("Half the buildings put the wrong bin out every week."),
        A(
            "The portal posts the council's collection calendar for each building and a "
            "note the evening before green and black bin collections.\n"
            + write("src/server/jobs/bins.ts", "bin notes"),
            "rt-bins",
        ),
        U("good"),
    ),
)

FLY_TIPPING = Chat(
    "fly-tipping",
    "By the gate",
    "2024-06-10",
    (
        U(
            "Someone dumped rubbish by the gate at Hyde Park Road. Residents say it was "
            "there all day Sunday. Can tenants report that kind of thing with a photo?"
        ),
        A(
            "Yes, it's a ticket type now ('outside the building'), and I linked the "
            "council's fly-tipping report form from it.\n"
            + write("src/server/tickets/types.ts", "outside ticket type")
        ),
        U("thanks"),
    ),
)

PETS = Chat(
    "pets",
    "Flat 8 request",
    "2024-06-17",
    (
        U("Flat 8 wants a cat. I'm fine with cats, less so with big dogs."),
        A(
            "Cats and small dogs are fine with a £25 monthly add-on and a signed clause; "
            "none in the two top-floor flats because of the shared roof terrace.\n"
            + write("src/server/tenancy/clauses.ts", "pet clause"),
            "rt-pets",
        ),
        U("good"),
    ),
)

GARDEN = Chat(
    "garden",
    "Garden",
    "2024-06-24",
    (
        U(
            "Tenants at the Chapel Allerton house asked if they're allowed to plant "
            "vegetables. Foxes and other animals dig everything up though."
        ),
        A(
            "Added a garden note to that property's page: tenants are allowed raised beds, "
            "netting recommended against animals.\n"
            + write("src/app/properties/garden.tsx", "garden note")
        ),
        U("fine"),
    ),
)

CHECKOUT = Chat(
    "checkout",
    "Leaving",
    "2024-07-01",
    (
        U("The last handover was a mess, we argued about a stain for three weeks."),
        A(
            "When a tenancy ends the portal books a checkout with the inventory clerk, "
            "compares photos against the check-in report and proposes deductions for Tom "
            "to approve.\n" + write("src/server/tenancy/checkout.ts", "checkout"),
            "rt-checkout",
        ),
        U("good"),
    ),
)

TRADES = Chat(
    "trades",
    "Who to call",
    "2024-07-08",
    (
        U("When a ticket comes in I call whoever answers first. Can we have a list?"),
        A(
            "Jobs go to three approved tradespeople: Kev for plumbing, Asha Electrical for "
            "wiring and Dean for joinery; each gets the ticket and the tenant's number.\n"
            + write("src/server/tickets/assign.ts", "assign trades"),
            "rt-trades",
        ),
        U("Kev's number changed, it's in my phone"),
        A("Send it over and I'll update his record."),
    ),
)

REQUESTS = (
    "The tenant dashboard looks cramped on phones.",
    "Can you change the portal's colours to navy?",
    "The login page should show our logo.",
    "Flat numbers are sorted wrong, 10 comes before 2.",
    "Add a contact page with the office hours.",
    "The ticket list takes a while to load.",
    "Make the buttons bigger, some tenants are older.",
    "The date format should be UK style.",
    "There's a typo on the charges page.",
    "Can the footer show the company number?",
    "The photos on tickets are sideways.",
    "Please tidy up the admin menu.",
)
REPLIES = (
    "Done, checked on a phone and a laptop.",
    "Fixed: numbers sort numerically now.",
    "Updated the colours and the focus outline.",
    "The list loads 20 at a time now.",
    "Done. Let me know if anything looks off.",
    "Fixed the orientation using the photo's EXIF data.",
)
PATHS = (
    "src/app/page.tsx",
    "src/app/tenant/page.tsx",
    "src/components/Nav.tsx",
    "src/app/admin/tickets.tsx",
    "src/styles/globals.css",
)

CHATS = by_day(
    FAULTS,
    GAS_CHECK,
    RENT,
    SHARED_BILLS,
    DEPOSITS,
    MOVING_IN,
    VIEWINGS,
    VOIDS,
    VISITS,
    LICENCE,
    DISPUTES,
    WELCOME,
    RENEWALS,
    CAR_PARK,
    SPARES,
    LOST_KEYS,
    BINS,
    FLY_TIPPING,
    PETS,
    GARDEN,
    CHECKOUT,
    TRADES,
    *fillers("misc", 10, 91, ("2024-02-01", "2024-07-15"), REQUESTS, REPLIES, PATHS),
)

QUESTIONS = (
    Q(
        "rnt-01",
        ("vague",),
        "How does someone tell us the boiler broke?",
        "boiler broken report",
        ("rt-faults",),
        distractors=("gas-check",),
    ),
    Q(
        "rnt-02",
        ("vague", "decision"),
        "How do tenants pay each month?",
        "tenant monthly payment",
        ("rt-rent",),
        distractors=("shared-bills",),
    ),
    Q(
        "rnt-03",
        ("vague",),
        "Where does the money people put down before moving in go?",
        "move in money protection",
        ("rt-deposits",),
        distractors=("moving-in",),
    ),
    Q(
        "rnt-04",
        ("vague",),
        "How do people arrange to see an empty flat?",
        "see empty flat",
        ("rt-viewings",),
        distractors=("voids",),
    ),
    Q(
        "rnt-05",
        ("vague",),
        "How often do we go round and look at the properties?",
        "property inspection frequency",
        ("rt-visits",),
        distractors=("licence",),
    ),
    Q(
        "rnt-06",
        ("vague",),
        "What do we do when residents argue about loud music?",
        "noise neighbours loud music",
        ("rt-disputes",),
        distractors=("welcome",),
    ),
    Q(
        "rnt-07",
        ("vague",),
        "What happens when someone's lease is about to run out?",
        "lease expiry renewal",
        ("rt-renewals",),
        distractors=("car-park",),
    ),
    Q(
        "rnt-08",
        ("vague", "fact"),
        "Where are the extra keys kept?",
        "spare keys kept",
        ("rt-spares",),
        distractors=("lost-keys",),
    ),
    Q(
        "rnt-09",
        ("vague",),
        "How do residents know which day the rubbish goes out?",
        "rubbish day reminder",
        ("rt-bins",),
        distractors=("fly-tipping",),
    ),
    Q(
        "rnt-10",
        ("vague", "decision"),
        "Are tenants allowed to keep animals?",
        "animals allowed",
        ("rt-pets",),
        distractors=("garden",),
    ),
    Q(
        "rnt-11",
        ("vague",),
        "What's the process when a tenant moves away?",
        "tenant moving away process",
        ("rt-checkout",),
        distractors=("moving-in",),
    ),
    Q(
        "rnt-12",
        ("vague", "names"),
        "Who fixes things when a pipe leaks?",
        "pipe leak fix",
        ("rt-trades",),
        distractors=("gas-check",),
    ),
    Q(
        "rnt-13",
        ("unanswerable",),
        "Did we put smart thermostats in the flats to save on heating?",
        "smart thermostat flats heating",
        (),
    ),
    Q(
        "rnt-14",
        ("unanswerable",),
        "Do tenants get a parking permit through the portal?",
        "tenant parking permit portal",
        (),
        distractors=("car-park",),
    ),
    Q(
        "rnt-15",
        ("unanswerable",),
        "Did we connect the portal to Xero for the accounts?",
        "Xero accounting",
        (),
    ),
)

APP = App(9, "rentals", CHATS, QUESTIONS)
