"""Ledgerly: invoicing and bookkeeping for freelancers. Invoice numbers, VAT, foreign
currencies, PDF generation (changed later), bank connections, payment reminders,
receipts, the tax estimate, a French-speaking accountant, a build error."""

from __future__ import annotations

from tests.evaluation.corpus import A, App, Chat, Q, S, U, by_day, error, fillers, sql, think, write

NUMBERING = Chat(
    "numbering",
    "Invoice numbers",
    "2024-01-11",
    (
        U("Invoices need numbers. My accountant says they have to be sequential."),
        A(
            "Invoice numbers must be unique and sequential without gaps in most EU "
            "countries. Format options: INV-0001, or with the year, 2024-0001."
        ),
        U("With the year, and restart every January."),
        A(
            "Invoice numbers are YYYY-NNNN (for example 2024-0007), restarting at 0001 each "
            "calendar year, allocated inside the same transaction that finalises the "
            "invoice, so a failed save never leaves a gap. Drafts have no number.",
            "numbering-format",
        ),
        U("ok"),
        A(
            write("src/server/invoices/invoice-number.ts", "gapless yearly numbering")
            + "\n"
            + sql(
                "counters",
                "CREATE TABLE invoice_counters (user_id int, year int, last int, "
                "PRIMARY KEY (user_id, year));",
            )
        ),
        U("Can a user change a number by hand?"),
        A(
            "Only the starting number, once, for people moving from another tool mid-year.",
            "numbering-start",
        ),
    ),
)

VAT = Chat(
    "vat",
    "VAT",
    "2024-01-25",
    (
        U(
            "I invoice a client in Germany from the Netherlands. My accountant said "
            "something about not charging VAT?"
        ),
        A(
            think("B2B cross-border services within the EU: reverse charge.")
            + "For business-to-business services to another EU country, the reverse charge "
            "applies: the invoice shows 0% VAT, both VAT numbers, and the note 'VAT reverse "
            "charged'. The customer accounts for the VAT in their own country.",
            "reverse-charge",
        ),
        U("How do we know the customer is a business?"),
        A(
            "We validate their VAT number against the EU VIES service when the client is "
            "saved, and again when an invoice is finalised.",
            "vies",
        ),
        U("and outside the EU?"),
        A("Exports of services outside the EU are usually outside the scope of VAT; 0% too."),
    ),
)

CURRENCY = Chat(
    "currency",
    "Foreign currencies",
    "2024-02-08",
    (
        U("Some of my clients pay in dollars or pounds."),
        A(
            "Invoices can be issued in any currency; for bookkeeping each one also needs the "
            "amount in the user's home currency. Which exchange rate do we use?"
        ),
        U("Whatever the tax office accepts. The official one I guess."),
        A(
            "Invoices in other currencies store the European Central Bank reference rate of "
            "the invoice date, fetched daily, and the converted amount in the home currency; "
            "the rate is printed on the invoice.",
            "ecb-rates",
        ),
        U("And when the payment arrives at a different rate?"),
        A(
            "The difference is booked as an exchange gain or loss when the payment is matched.",
            "fx-difference",
        ),
    ),
)

PDF = Chat(
    "pdf",
    "PDF invoices",
    "2024-02-22",
    (
        U("Invoices need to be downloadable as PDF and attached to emails."),
        A(
            "Easiest: render the invoice HTML page and print it with Puppeteer (headless "
            "Chrome) in a serverless function.",
            "pdf-v1",
        ),
        U("sure"),
        A(write("src/server/pdf/render.ts", "Puppeteer PDF rendering")),
        U("The deploy fails now"),
        A(
            error("Error [ERR_REQUIRE_ESM]: require() of ES Module not supported")
            + " The PDF function was bundled as CommonJS but a dependency is ESM-only. The "
            "function is now built as an ES module.",
            "esm-error",
        ),
    ),
)

BANK = Chat(
    "bank",
    "Bank connection",
    "2024-03-07",
    (
        U("Typing in payments by hand is painful. Can we connect to the bank?"),
        A(
            "Open banking aggregators: Plaid (strong in the US, weaker in Europe), "
            "GoCardless Bank Account Data (formerly Nordigen, free for account information "
            "in the EU and UK), TrueLayer. For European freelancers GoCardless covers the most "
            "banks for free."
        ),
        U("GoCardless then"),
        A(
            "Bank feeds use GoCardless Bank Account Data: the user connects a bank through "
            "the consent flow, transactions are pulled four times a day, and incoming "
            "payments are matched to open invoices by amount and reference. Consent lasts "
            "90 days, then the user has to reconnect.",
            "bank-feeds",
        ),
        U("Remind people before it expires"),
        A("An email and a banner 7 days before the 90-day consent runs out.", "consent-reminder"),
    ),
)

REMINDERS = Chat(
    "reminders",
    "Overdue invoices",
    "2024-03-21",
    (
        U("Clients forget to pay. I hate writing those emails."),
        A(
            "Automatic payment reminders: when an invoice passes its due date, send a polite "
            "email; then a firmer one; each with the PDF and a payment link. What schedule "
            "do you want?"
        ),
        U(
            "3 days after the due date, then 10 days, then 21 days, and then stop and tell me.",
            "reminder-schedule",
        ),
        A(
            write("src/server/jobs/dunning.ts", "overdue reminders")
            + "\nThe reminders go out in the user's name from our domain, and the user gets a "
            "notification after the third."
        ),
        U("Can people turn it off for a client they have a good relationship with?"),
        A("Yes, per client: 'Never send reminders to this client'.", "reminder-opt-out"),
    ),
)

RECEIPTS = Chat(
    "receipts",
    "Expenses",
    "2024-04-04",
    (
        U("Freelancers also need to track expenses. Photos of receipts mostly."),
        A(
            "Receipt capture: the user photographs a receipt, we extract merchant, date, "
            "total and VAT with an OCR service and the user confirms. Mindee and AWS Textract "
            "both have receipt models."
        ),
        U("Which is cheaper?"),
        A(
            "At our volume Mindee is cheaper and more accurate on European receipts; Textract "
            "struggles with VAT breakdowns.",
        ),
        U("Mindee"),
        A(
            "Receipts are read with Mindee's receipt API; the photo is kept for 10 years, as "
            "bookkeeping rules require, in encrypted storage.",
            "receipts-ocr",
        ),
    ),
)

TAX = Chat(
    "tax",
    "Tax estimate",
    "2024-04-18",
    (
        S(
            "Tax estimate",
            "We added a quarterly tax estimate for Dutch and German freelancers: income tax "
            "is estimated from profit to date using the current year's brackets, and the "
            "dashboard suggests setting aside 30% of each payment received as a default. "
            "Sven, the beta tester from Utrecht, asked for the percentage to be editable, "
            "which it now is.",
            "tax-summary",
        ),
        U("Should we show a disclaimer?"),
        A(
            "Yes: 'An estimate, not tax advice' under the number, linking to the help page.",
            "tax-disclaimer",
        ),
    ),
)

FRENCH = Chat(
    "french",
    "Questions de Chloé",
    "2024-04-30",
    (
        U(
            "Chloé Martin, la comptable de plusieurs utilisateurs, demande si elle peut "
            "accéder aux comptes de ses clients.",
            "chloe",
        ),
        A(
            "Oui : un accès comptable en lecture seule. Le client invite sa comptable par "
            "e-mail, elle voit les factures, les dépenses et peut exporter le grand livre, "
            "sans pouvoir rien modifier.",
            "accountant-access",
        ),
        U("Et l'export pour son logiciel ?"),
        A("Export FEC et CSV, au choix.", "fec-export"),
    ),
)

PDF_CHANGE = Chat(
    "pdf-change",
    "Faster PDFs",
    "2024-05-15",
    (
        U("Generating an invoice PDF takes 6 seconds and sometimes times out. Users notice."),
        A(
            "Most of that is starting headless Chrome. Generating the PDF directly with "
            "react-pdf avoids the browser entirely; layouts are written as React components."
        ),
        U("Switch."),
        A(
            "Invoice PDFs are now generated with @react-pdf/renderer instead of Puppeteer: "
            "about 300 ms instead of 6 seconds, and no Chrome in the function. The old HTML "
            "template is removed.",
            "pdf-v2",
        ),
        U("Fonts look different"),
        A("Registered Inter explicitly so the PDF uses the same font as the app.", "pdf-font"),
    ),
)

REQUESTS = (
    "The invoice list should show overdue invoices first.",
    "Make the client form shorter, nobody fills in the fax number.",
    "The dashboard chart is wrong for December.",
    "Add a search box to the clients page.",
    "Can the invoice editor remember the last payment terms?",
    "The numbers in the table don't line up.",
    "Add a button to duplicate an invoice.",
    "The settings page should let users upload a logo.",
    "Time to sort out the mobile layout of the invoice editor.",
    "People want to go back to a draft after sending, can they?",
    "Show the total for the year at the top of the dashboard.",
    "The VAT number field should accept spaces.",
    "Put the invoice number in the email subject.",
    "The currency dropdown is way too long.",
    "The PDF footer cuts off the bank details.",
    "The bank connection page needs our logo.",
    "Reminder emails should use the user's signature.",
    "Receipts list should show a thumbnail.",
    "The tax estimate card is cramped on mobile.",
    "Add a filter for paid and unpaid invoices.",
    "Clients with an overdue invoice should have a red dot.",
    "The accountant invite email looks plain.",
)
REPLIES = (
    "Done, I tested it with invoices in three currencies.",
    "Fixed the chart; December was counted in the next year.",
    "Added it. The numbers use tabular figures so they line up.",
    "Updated the layout for small screens.",
    "Done. A sent invoice can't go back to draft, but it can be credited and copied.",
    "Changed the component and added a test.",
    "Done; the invoice data and the numbering are unchanged.",
    "Fixed the PDF margins so the footer fits.",
    "Added it and checked it with a long bank name.",
    "Updated the template; it takes the signature from the settings.",
)
PATHS = (
    "src/app/invoices/page.tsx",
    "src/app/clients/page.tsx",
    "src/components/InvoiceEditor.tsx",
    "src/app/dashboard/page.tsx",
    "src/app/settings/page.tsx",
)

CHATS = by_day(
    NUMBERING,
    VAT,
    CURRENCY,
    PDF,
    BANK,
    REMINDERS,
    RECEIPTS,
    TAX,
    FRENCH,
    PDF_CHANGE,
    *fillers("misc", 26, 71, ("2024-01-08", "2024-05-30"), REQUESTS, REPLIES, PATHS),
)

QUESTIONS = (
    Q(
        "inv-01",
        ("fact",),
        "What format do invoice numbers have?",
        "invoice number format",
        ("numbering-format",),
    ),
    Q(
        "inv-02",
        ("identifier",),
        "What's in invoice-number.ts?",
        "invoice-number.ts",
        ("numbering-format",),
    ),
    Q(
        "inv-03",
        ("vocabulary", "fact"),
        "Someone switching from another tool halfway through the year, can they keep their "
        "numbering going?",
        "switching tool keep numbering",
        ("numbering-start",),
    ),
    Q(
        "inv-04",
        ("vocabulary", "decision"),
        "Do I add tax when I bill a German company from the Netherlands?",
        "tax bill German company Netherlands",
        ("reverse-charge",),
    ),
    Q(
        "inv-05",
        ("names", "fact"),
        "How do we check a client's VAT number?",
        "validate VAT number",
        ("vies",),
    ),
    Q(
        "inv-06",
        ("decision", "vocabulary"),
        "Which conversion rate do we use for invoices in dollars?",
        "conversion rate dollars invoice",
        ("ecb-rates",),
    ),
    Q(
        "inv-07",
        ("fact",),
        "What happens when a client pays at a different exchange rate?",
        "exchange rate difference payment",
        ("fx-difference",),
    ),
    Q(
        "inv-08",
        ("superseded", "names"),
        "Do we still use Puppeteer to make the PDFs?",
        "Puppeteer PDF",
        ("pdf-v2",),
    ),
    Q(
        "inv-09",
        ("superseded", "vocabulary"),
        "Why are invoice downloads faster now?",
        "invoice download faster",
        ("pdf-v2",),
    ),
    Q(
        "inv-10",
        ("identifier",),
        "How did we fix the ERR_REQUIRE_ESM deploy failure?",
        "ERR_REQUIRE_ESM",
        ("esm-error",),
    ),
    Q(
        "inv-11",
        ("vocabulary", "names"),
        "How do payments from the bank get into the app automatically?",
        "bank payments import automatically",
        ("bank-feeds",),
    ),
    Q(
        "inv-12",
        ("fact", "when"),
        "How long until users have to reconnect their bank?",
        "bank consent expiry reconnect",
        ("bank-feeds",),
    ),
    Q(
        "inv-13",
        ("vocabulary", "assistant_asks"),
        "When do we chase clients who haven't paid?",
        "chase unpaid clients",
        ("reminder-schedule",),
    ),
    Q(
        "inv-14",
        ("possessive", "fact"),
        "Can I stop reminders for a client I'm friendly with?",
        "disable reminders per client",
        ("reminder-opt-out",),
    ),
    Q(
        "inv-15",
        ("decision", "names"),
        "Which service reads the receipts, and why not Textract?",
        "receipt OCR service",
        ("receipts-ocr",),
    ),
    Q(
        "inv-16",
        ("fact", "vocabulary"),
        "How long do we keep photos of receipts?",
        "receipt photo retention",
        ("receipts-ocr",),
    ),
    Q(
        "inv-17",
        ("names", "possessive"),
        "What did Sven from the beta ask for in the tax estimate?",
        "Sven tax estimate",
        ("tax-summary",),
    ),
    Q(
        "inv-18",
        ("vocabulary", "fact"),
        "How much money should people put aside for taxes?",
        "set aside taxes percentage",
        ("tax-summary",),
    ),
    Q(
        "inv-19",
        ("multilingual", "names"),
        "Est-ce que Chloé peut voir les factures de ses clients ?",
        "accès comptable",
        ("accountant-access",),
    ),
    Q(
        "inv-20",
        ("multilingual", "possessive"),
        "Which export formats can the accountant's software import?",
        "export FEC CSV accountant",
        ("fec-export",),
    ),
    Q(
        "inv-21",
        ("multi_chat", "superseded"),
        "How do we generate invoice PDFs, and what did we use before?",
        "invoice PDF generation",
        ("pdf-v1", "pdf-v2"),
    ),
    Q(
        "inv-22",
        ("when",),
        "When did we connect bank accounts?",
        "bank connection GoCardless",
        ("bank-feeds",),
    ),
    Q(
        "inv-23",
        ("multi_chat",),
        "What did my accountant tell us about invoices?",
        "accountant invoices",
        ("numbering-format", "reverse-charge"),
    ),
    Q(
        "inv-24",
        ("names", "decision"),
        "Which open banking provider did we go with?",
        "open banking provider",
        ("bank-feeds",),
    ),
    Q(
        "inv-25",
        ("names",),
        "Who is Chloé Martin?",
        "Chloé Martin",
        ("chloe",),
    ),
    Q(
        "inv-26",
        ("superseded", "fact"),
        "How long does it take to generate an invoice PDF now?",
        "PDF generation time",
        ("pdf-v2",),
    ),
    Q(
        "inv-27",
        ("superseded",),
        "Is headless Chrome still used for the invoice PDFs?",
        "headless Chrome PDF",
        ("pdf-v2",),
    ),
    Q(
        "inv-28",
        ("names", "fact"),
        "Which font do the invoice PDFs use?",
        "PDF font",
        ("pdf-font",),
    ),
    Q(
        "inv-29",
        ("fact",),
        "What disclaimer do we show with the tax estimate?",
        "tax estimate disclaimer",
        ("tax-disclaimer",),
    ),
    Q(
        "inv-30",
        ("vague",),
        "When do we chase clients who haven't paid?",
        "chase unpaid clients",
        ("reminder-schedule",),
        distractors=("misc-13",),
    ),
    Q(
        "inv-31",
        ("vague",),
        "What if the euro moves between sending an invoice and getting paid?",
        "currency moves invoice paid",
        ("fx-difference",),
        distractors=("misc-23",),
    ),
    Q(
        "inv-32",
        ("unanswerable",),
        "Can clients pay invoices in crypto?",
        "crypto invoice payment",
        (),
        distractors=("reminders",),
    ),
    Q(
        "inv-33",
        ("unanswerable",),
        "Did we add payroll for employees?",
        "payroll employees",
        (),
    ),
    Q(
        "inv-34",
        ("unanswerable",),
        "Did we build time tracking for billable hours?",
        "time tracking billable hours",
        (),
    ),
)

APP = App(7, "invoicing", CHATS, QUESTIONS)
