"""Physio booking: online appointments for a physiotherapy clinic with two sites.
Reminders (changed later), cancellations, calendar sync, health-data hosting, staff
roles, the waitlist, deposits, time zones, and a few assistant questions the owner
answered."""

from __future__ import annotations

from tests.evaluation.corpus import A, App, Chat, Q, U, by_day, error, fillers, sql, think, write

BOOKING = Chat(
    "booking",
    "Booking flow",
    "2024-01-10",
    (
        U(
            "Luis here (I own the clinic). Patients should book online instead of calling "
            "reception. Two sites: Northside and Riverside.",
            "two-sites",
        ),
        A(
            "The flow: choose a site, a treatment type (first assessment 45 min, follow-up "
            "30 min, sports massage 60 min), then a slot. Should patients choose their "
            "therapist, or only a time?"
        ),
        U(
            "New patients just pick a time, we assign them. Returning patients can pick "
            "their own therapist.",
            "therapist-choice",
        ),
        A(
            write("src/app/book/page.tsx", "booking wizard")
            + "\nThe wizard asks for a therapist only when the patient has a previous visit."
        ),
        U("Slots every 15 minutes?"),
        A(
            "Slots start every 15 minutes within each therapist's working hours, and a "
            "10-minute buffer is kept after every appointment for notes and cleaning.",
            "slot-buffer",
        ),
        U("good"),
    ),
)

REMINDERS = Chat(
    "reminders",
    "Appointment reminders",
    "2024-01-24",
    (
        U("Lots of no-shows. Can we remind people?"),
        A(
            "Reminders reduce no-shows a lot. We can send an SMS through Twilio 24 hours "
            "before the appointment, with a link to cancel or reschedule.",
        ),
        U("Do it"),
        A(
            "Reminders: one SMS via Twilio 24 hours before each appointment, sent by a job "
            "that runs every 10 minutes. The message has a link to cancel or move the "
            "booking.",
            "reminders-v1",
        ),
        U("What does it cost?"),
        A(
            "About 0.04 GBP per SMS in the UK, so roughly 60 GBP a month at your volume.",
            "sms-cost",
        ),
        U("fine"),
        A(write("src/server/jobs/reminders.ts", "Twilio SMS reminders")),
    ),
)

CANCEL = Chat(
    "cancellations",
    "Cancellation policy",
    "2024-02-07",
    (
        U("People cancel an hour before and we can't fill the slot. I want a cancellation fee."),
        A(
            "Common policy: free cancellation until 24 hours before; later cancellations "
            "and no-shows pay part of the fee. To charge it we need a card on file."
        ),
        U("Half the price if they cancel late or don't turn up."),
        A(
            "Cancellation policy: free until 24 hours before the appointment; cancelling "
            "later or not showing up costs 50% of the treatment price, charged to the card "
            "saved at booking with a Stripe SetupIntent.",
            "cancel-fee",
        ),
        U("Reception needs to be able to waive it"),
        A(
            "Reception can waive the late fee from the appointment screen, with a reason "
            "that is logged.",
            "fee-waiver",
        ),
    ),
)

CALENDAR = Chat(
    "calendar",
    "Calendar sync",
    "2024-02-21",
    (
        U(
            "The therapists want their appointments in their own calendars. Anika uses "
            "Google, Tom uses Outlook."
        ),
        A(
            "Google Calendar has a good API, so we can do a two-way sync: appointments go "
            "into the therapist's calendar, and their private events block our slots. "
            "For Outlook, Microsoft Graph would work but needs admin consent in their "
            "tenant; an ICS subscription feed is one-way but trivial."
        ),
        U("Two-way for Google, the feed thing for Outlook."),
        A(
            "Calendar sync: two-way with Google Calendar through the API (push "
            "notifications on changes), and a read-only ICS feed URL per therapist for "
            "Outlook and Apple Calendar. Private events only block time; their titles are "
            "never stored.",
            "calendar-sync",
        ),
        U("go"),
        A(write("src/server/calendar/google.ts", "Google two-way sync")),
        U("Anika's events are showing up twice"),
        A(
            "The push channel was registered twice after a redeploy; channels are now "
            "stored and renewed instead of re-created.",
            "anika-duplicates",
        ),
    ),
)

HOSTING = Chat(
    "hosting",
    "Where is the data stored",
    "2024-03-05",
    (
        U(
            "A patient asked where her data lives. It's health data so I guess we have to "
            "be careful?"
        ),
        A(
            think("Special category data under UK GDPR / GDPR art. 9.")
            + "Health information is special category data under GDPR. We should keep it in "
            "the UK or EU, encrypt it at rest, and sign a data processing agreement with "
            "every provider."
        ),
        U("What are we on now?"),
        A(
            "Data residency: the database is Supabase Postgres in the Frankfurt (eu-central-1) "
            "region, encrypted at rest; clinical notes are additionally encrypted per "
            "record with pgsodium. DPAs are signed with Supabase, Twilio and Stripe.",
            "data-residency",
        ),
        U("How long do we keep records?"),
        A(
            "Clinical records are kept 8 years after the last treatment (the professional "
            "guidance for adults), then deleted by a yearly job.",
            "retention",
        ),
    ),
)

ROLES = Chat(
    "roles",
    "Staff accounts",
    "2024-03-19",
    (
        U("Reception shouldn't read clinical notes. Only the therapists."),
        A(
            "Roles: owner (everything), therapist (their own patients' notes and "
            "diary), reception (diary, patients' contact details, payments, no clinical "
            "notes). Should a therapist see notes written by other therapists?",
            "roles",
        ),
        U(
            "Only if they share the patient, like when someone covers for a colleague.",
            "notes-sharing",
        ),
        A(
            "Implemented with row-level security: a therapist can read a note when they have "
            "an appointment with that patient in the last 12 months.\n"
            + sql(
                "notes access policy",
                "CREATE POLICY notes_read ON notes FOR SELECT USING (shares_patient(auth.uid()));",
            )
        ),
    ),
)

WAITLIST = Chat(
    "waitlist",
    "Waitlist",
    "2024-04-02",
    (
        U("When a slot frees up, it would be nice to offer it to people waiting."),
        A(
            "A waitlist per therapist and site: patients join it for a date range; when a "
            "slot opens, the first three people on the list get a message and whoever "
            "confirms first takes it.",
            "waitlist",
        ),
        U("Doesn't that annoy the other two?"),
        A("They get a 'sorry, it's taken' message and stay on the list."),
        U("ok"),
        A(write("src/server/jobs/waitlist.ts", "offer freed slots")),
    ),
)

TIMEZONE = Chat(
    "timezone",
    "Wrong times in emails",
    "2024-04-09",
    (
        U("A patient got a confirmation for 9:00 but booked 10:00."),
        A(
            error("RangeError: Invalid time zone specified: BST")
            + " Times were formatted with the server's zone (UTC) and the clocks changed on "
            "31 March. All times are now stored in UTC and shown in Europe/London, using "
            "the IANA name, never abbreviations like BST.",
            "timezone-bug",
        ),
        U("Will it break again in October?"),
        A("No, Europe/London covers both summer and winter time."),
    ),
)

DEPOSITS = Chat(
    "deposits",
    "Deposits for first visits",
    "2024-04-23",
    (
        U(
            "New patients no-show more than anyone. Dr. Brandt suggested taking a deposit "
            "for first assessments.",
            "brandt-deposit",
        ),
        A(
            "A deposit at booking for first assessments only. How much should it be, and "
            "should it count towards the treatment price?"
        ),
        U(
            "20 pounds, taken off the bill on the day. Lost if they don't show.",
            "deposit-amount",
        ),
        A(write("src/server/payments/deposit.ts", "first assessment deposit")),
    ),
)

REMINDERS_CHANGE = Chat(
    "reminders-change",
    "Reminders v2",
    "2024-05-14",
    (
        U("SMS costs went up and some patients never read texts. Most of them use WhatsApp."),
        A(
            "Options: WhatsApp Business messages through Twilio (template messages, cheaper "
            "than SMS in the UK) plus an email; SMS only as a fallback for numbers without "
            "WhatsApp."
        ),
        U("Do that. And send the email two days before, the WhatsApp on the day before."),
        A(
            "Reminders now go by WhatsApp (through Twilio's WhatsApp Business API) 24 hours "
            "before and by email 48 hours before; SMS is only the fallback when a number has "
            "no WhatsApp. This replaces the SMS-only reminders.",
            "reminders-v2",
        ),
        U("Patients can opt out right?"),
        A("Yes, a reply of STOP or the link in the email turns reminders off for them."),
    ),
)

REQUESTS = (
    "The diary view is cramped on the reception laptop.",
    "Add the patient's phone number to the appointment popup.",
    "Make the booking confirmation page friendlier.",
    "Colour code the appointments by treatment type.",
    "The login page needs the clinic logo.",
    "Reception wants to search patients by date of birth.",
    "The invoice PDF has the wrong address.",
    "Can we print the day's list of appointments?",
    "Week view should start at 7am, not midnight.",
    "The patient form should ask for GP details.",
    "Make the buttons bigger, the therapists use tablets.",
    "Add a note field to each appointment for reception.",
    "Time slots overlap in the week view when they're short.",
    "Fix the typo in the welcome email.",
    "The reminder settings page is hard to find.",
    "Show the cancellation fee on the receipt.",
    "The therapist's calendar colour should match the diary.",
    "Add the Riverside address to the booking confirmation.",
    "The deposit line on the invoice looks odd.",
    "Reception wants the waitlist count on the dashboard.",
    "Make the patient notes editor autosave.",
    "The booking page should say which site is which.",
    "New patients should see a short welcome text before booking.",
    "Show Anika's photo on the therapist page.",
    "The SMS preview in settings cuts off the text.",
    "Add a 'late' badge when a patient is running late.",
)
REPLIES = (
    "Done. I changed the layout and tested it at 1366x768.",
    "Added it, it only shows for staff roles.",
    "Fixed the styles and the page now matches the rest of the diary.",
    "The query was missing an index; searching by date of birth is instant now.",
    "Updated the template and sent myself a test.",
    "Done. The component now reads the setting from the clinic profile.",
    "Changed it and added a test so it won't come back.",
    "Done; the reminder job itself is unchanged.",
    "Added it to the receipt template and the email.",
    "Updated the diary colours to match each therapist's calendar.",
    "Fixed the notes editor so it saves every few seconds.",
)
PATHS = (
    "src/app/diary/page.tsx",
    "src/components/AppointmentCard.tsx",
    "src/app/patients/page.tsx",
    "src/emails/welcome.tsx",
    "src/app/book/confirm/page.tsx",
)

CHATS = by_day(
    BOOKING,
    REMINDERS,
    CANCEL,
    CALENDAR,
    HOSTING,
    ROLES,
    WAITLIST,
    TIMEZONE,
    DEPOSITS,
    REMINDERS_CHANGE,
    *fillers("misc", 28, 31, ("2024-01-08", "2024-05-28"), REQUESTS, REPLIES, PATHS),
)

QUESTIONS = (
    Q(
        "cli-01",
        ("assistant_asks", "decision"),
        "Can patients choose which physio they see?",
        "patients choose therapist",
        ("therapist-choice",),
    ),
    Q(
        "cli-02",
        ("fact",),
        "How much time is left between two appointments?",
        "gap between appointments",
        ("slot-buffer",),
    ),
    Q(
        "cli-03",
        ("superseded",),
        "How are patients reminded about their appointments?",
        "appointment reminders",
        ("reminders-v2",),
    ),
    Q(
        "cli-04",
        ("superseded", "when"),
        "When did we stop using only text messages for reminders?",
        "reminders SMS WhatsApp change",
        ("reminders-v2",),
    ),
    Q(
        "cli-05",
        ("vocabulary", "fact"),
        "What do patients pay if they don't turn up?",
        "missed appointment charge",
        ("cancel-fee",),
    ),
    Q(
        "cli-06",
        ("vocabulary",),
        "Can the front desk let someone off the late fee?",
        "front desk cancel late fee",
        ("fee-waiver",),
    ),
    Q(
        "cli-07",
        ("names", "decision"),
        "How do appointments get into Tom's Outlook?",
        "Outlook calendar",
        ("calendar-sync",),
    ),
    Q(
        "cli-08",
        ("names", "possessive"),
        "Why were Anika's appointments showing twice in her calendar?",
        "Anika duplicate events",
        ("anika-duplicates",),
    ),
    Q(
        "cli-09",
        ("vocabulary", "fact"),
        "Which country are the patients' records kept in?",
        "patient data country",
        ("data-residency",),
    ),
    Q(
        "cli-10",
        ("fact",),
        "How long do we keep medical records before deleting them?",
        "records retention years",
        ("retention",),
    ),
    Q(
        "cli-11",
        ("assistant_asks",),
        "Can a therapist read another therapist's notes?",
        "therapist notes other therapists",
        ("notes-sharing",),
    ),
    Q(
        "cli-12",
        ("vocabulary",),
        "What happens when someone cancels and people are waiting for a spot?",
        "cancelled slot people waiting",
        ("waitlist",),
    ),
    Q(
        "cli-13",
        ("identifier",),
        "Why did we get 'Invalid time zone specified: BST'?",
        "Invalid time zone BST",
        ("timezone-bug",),
    ),
    Q(
        "cli-14",
        ("vocabulary",),
        "Why did confirmation emails show the wrong hour after the clocks went forward?",
        "wrong hour clocks confirmation",
        ("timezone-bug",),
    ),
    Q(
        "cli-15",
        ("assistant_asks", "names", "fact"),
        "How much is the deposit Dr. Brandt suggested?",
        "deposit first assessment amount",
        ("deposit-amount",),
    ),
    Q(
        "cli-16",
        ("multi_chat",),
        "What have we done to reduce no-shows?",
        "no-shows",
        ("reminders-v1", "cancel-fee", "deposit-amount"),
    ),
    Q(
        "cli-17",
        ("when",),
        "When did we set up the Google Calendar sync?",
        "Google Calendar sync",
        ("calendar-sync",),
    ),
    Q(
        "cli-18",
        ("possessive", "names"),
        "What's Luis's rule for new patients choosing a therapist?",
        "Luis new patients therapist",
        ("therapist-choice",),
    ),
    Q(
        "cli-19",
        ("when",),
        "When did the wrong-time bug in confirmations happen?",
        "confirmation wrong time bug",
        ("timezone-bug",),
    ),
    Q(
        "cli-20",
        ("possessive", "fact"),
        "Reception can't see clinical notes, can they?",
        "reception clinical notes access",
        ("roles",),
    ),
    Q(
        "cli-21",
        ("multi_chat", "names"),
        "What do we use Twilio for?",
        "Twilio",
        ("reminders-v1", "reminders-v2"),
    ),
    Q(
        "cli-22",
        ("names", "vocabulary"),
        "Which company hosts our database?",
        "database hosting provider",
        ("data-residency",),
    ),
    Q(
        "cli-23",
        ("names",),
        "Which of our doctors suggested asking new patients for a deposit?",
        "deposit suggestion doctor",
        ("brandt-deposit",),
    ),
    Q(
        "cli-24",
        ("names", "fact"),
        "What are the clinic's two sites called?",
        "clinic sites",
        ("two-sites",),
    ),
    Q(
        "cli-25",
        ("superseded",),
        "Do appointment reminders still go out by text message?",
        "reminders SMS text",
        ("reminders-v2",),
    ),
    Q(
        "cli-26",
        ("superseded", "fact"),
        "How long before an appointment is the email reminder sent?",
        "email reminder hours before",
        ("reminders-v2",),
    ),
    Q(
        "cli-27",
        ("names",),
        "Which providers have we signed data processing agreements with?",
        "data processing agreement providers",
        ("data-residency",),
    ),
    Q(
        "cli-28",
        ("names", "fact"),
        "What do we use to encrypt the clinical notes?",
        "clinical notes encryption",
        ("data-residency",),
    ),
    Q(
        "cli-29",
        ("fact",),
        "What does it cost us to send one text reminder?",
        "SMS cost",
        ("sms-cost",),
    ),
    Q(
        "cli-30",
        ("vague",),
        "What can the front desk staff see?",
        "front desk staff see",
        ("roles",),
        distractors=("misc-24",),
    ),
    Q(
        "cli-31",
        ("vague",),
        "What if all the times someone wants are taken?",
        "appointment times all taken",
        ("waitlist",),
        distractors=("misc-22",),
    ),
    Q(
        "cli-32",
        ("vague",),
        "What happens if a patient doesn't show up?",
        "patient no show",
        ("cancel-fee",),
        distractors=("misc-26",),
    ),
    Q(
        "cli-33",
        ("unanswerable",),
        "Did we set up video calls for patients who can't come in?",
        "video consultation patients",
        (),
    ),
    Q(
        "cli-34",
        ("unanswerable",),
        "Can patients pay for treatment in instalments?",
        "treatment payment instalments",
        (),
    ),
    Q(
        "cli-35",
        ("unanswerable",),
        "Is there a parking map for the Riverside site?",
        "parking Riverside site",
        (),
        distractors=("booking",),
    ),
)

APP = App(3, "clinic", CHATS, QUESTIONS)
