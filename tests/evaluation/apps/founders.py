"""Two co-founders, Dana and Ibrahim, building a language-learning startup (Parla) and
talking it through in a direct-message thread whose daily chats are imported (no
assistant; Dana's lines are stored as the user role, Ibrahim's as the other). Every
chat carries the thread's title. Pricing changes twice, people come and go, dates
matter."""

from __future__ import annotations

from tests.evaluation.corpus import App, Chat, P, Q, by_day, chatters

TITLE = "Dana & Ibrahim"


def day(key: str, date: str, *lines: str, labels: dict[int, str] | None = None) -> Chat:
    return Chat(key, TITLE, date, P(*lines, labels=labels), peer=True)


D1 = day(
    "d01",
    "2023-09-05",
    "Morning! I went through the survey results last night. 212 answers.",
    "And? Don't keep me waiting.",
    "People who already tried Duolingo say the same thing: they learn words but can't hold "
    "a conversation. Speaking practice is the gap.",
    "That's our pitch then. Conversation practice first, vocabulary second.",
    "Agreed. Which languages do we launch with? Spanish is obvious.",
    "Spanish and Portuguese first. I can review the Portuguese content myself and we know "
    "good teachers in both. French and German later.",
    "Works for me. Spanish and Portuguese at launch it is.",
    "I'll register the company this week, by the way. Parla Ltd, we said 50/50?",
    "50/50, with four-year vesting and a one-year cliff for both of us, like we discussed.",
    "Perfect, I'll tell the accountant.",
    labels={5: "launch-languages", 8: "equity-split"},
)

D2 = day(
    "d02",
    "2023-09-19",
    "We need to talk about pricing before the beta.",
    "I've been looking at competitors. Most charge 10-15 a month.",
    "I'd go 12.99 a month and keep a free tier with three conversations a week.",
    "Let's do 12.99 with the free tier, and see what people say in the beta.",
    "Deal. I'll put it in the pitch deck.",
    "Also, do we need a designer? My Figma skills are a crime.",
    "Yes. I know someone, Keiko Tanaka, she did the onboarding at that meditation app. "
    "She's freelance.",
    "Can you set up a call with her?",
    "Thursday at 4, I'll send an invite.",
    labels={3: "pricing-v1", 6: "keiko-intro"},
)

D3 = day(
    "d03",
    "2023-10-02",
    "Keiko's call went really well I thought.",
    "Same. Her portfolio is great and she gets the product. She's expensive though.",
    "600 a day. But she only needs three weeks for the core screens.",
    "Let's hire her for the three weeks and see. Can we afford it?",
    "With the grant money, yes. The Innovate grant came through yesterday by the way, 25k.",
    "WHAT. You buried the lead! That's amazing.",
    "I wanted to say it in person but I'm too excited. 25k, no equity.",
    "Okay so: Keiko for three weeks, and the rest of the grant goes to the AI tutor prototype.",
    labels={2: "keiko-rate", 4: "grant"},
)

D4 = day(
    "d04",
    "2023-10-24",
    "The AI tutor prototype is working. I had a ten-minute conversation in Portuguese with "
    "it about ordering food and it corrected my verbs.",
    "Which model are we using?",
    "A hosted model through an API for now, with our own prompts for each lesson and a "
    "list of the words the learner knows. Costs about 4 cents a conversation.",
    "That's fine at beta scale. What about voice?",
    "Speech to text with Whisper, text to speech with a neural voice. The lag is about 2 "
    "seconds, which feels a bit slow.",
    "Let's ship text first and voice as an experiment for 10% of users.",
    "Good call.",
    labels={2: "tutor-cost", 4: "whisper", 5: "voice-experiment"},
)

D5 = day(
    "d05",
    "2023-11-15",
    "I had the meeting with Northwind Ventures today.",
    "How was it?? Who was there?",
    "Oliver Grant, the partner, and an associate. Oliver liked the retention numbers from "
    "the beta, 41% of users still active after four weeks.",
    "That's a good number for language apps. Did they talk terms?",
    "Not yet. He wants to see three more months of growth and a clearer plan for schools. "
    "He thinks schools are where the money is.",
    "I'm not sure I want to become an edtech sales company.",
    "Me neither, but it's worth a pilot. Greenfield Academy already asked about it.",
    "Okay, one pilot with Greenfield, no custom features.",
    labels={2: "northwind-meeting", 4: "oliver-concern", 7: "greenfield-pilot"},
)

D6 = day(
    "d06",
    "2023-12-06",
    "Beta feedback is in. People love the tutor, hate the price.",
    "How bad?",
    "Lots of 'I'd pay 5, not 13'. And the free tier is too generous, three conversations a "
    "week is enough for most people so they never upgrade.",
    "Okay. Lower the price and make the free tier smaller?",
    "8.99 a month, 59.99 a year, free tier one conversation a week.",
    "Yes. That replaces the 12.99 plan. I'll update the paywall tonight.",
    labels={2: "beta-feedback", 4: "pricing-v2"},
)

D7 = day(
    "d07",
    "2024-01-10",
    "Happy new year! Ready for the launch month?",
    "Ready-ish. The App Store review rejected us yesterday.",
    "What? Why?",
    "Guideline 3.1.1, the 'restore purchases' button was missing from the paywall. Keiko "
    "already added it, we resubmitted this morning.",
    "Okay, annoying but easy. When do we launch publicly?",
    "If review passes, Tuesday the 23rd. Press embargo lifts at 9am.",
    "I'll line up the Product Hunt post for the same day.",
    labels={3: "app-store-rejection", 5: "launch-date"},
)

D8 = day(
    "d08",
    "2024-02-02",
    "Launch numbers: 9,400 downloads in the first week, 3.2% converted to paid.",
    "That's above what we modelled. The Product Hunt post did more than I expected.",
    "Top 3 of the day. A teacher from Porto wrote a long thread about us too.",
    "I want to hire someone for support, I'm answering emails until midnight.",
    "Part-time first? Marta from the beta community already answers half the questions in "
    "the Discord for free.",
    "Let's offer Marta a part-time support role, 20 hours a week.",
    labels={0: "launch-numbers", 2: "porto-thread", 5: "marta-support"},
)

D9 = day(
    "d09",
    "2024-03-12",
    "Northwind came back. Oliver wants to lead the seed round: 1.2 million at a 6 million "
    "valuation.",
    "That's real. How do you feel?",
    "Good, but I want a second opinion on the terms. The board seat and the liquidation "
    "preference are the bits I don't understand yet.",
    "My cousin Samir is a startup lawyer. I'll ask him to read the term sheet this week.",
    "Please. And we shouldn't sign anything before the Greenfield pilot results, they "
    "help the valuation.",
    "Agreed. The pilot ends on the 29th.",
    labels={0: "seed-terms", 3: "samir-lawyer"},
)

D10 = day(
    "d10",
    "2024-04-08",
    "Greenfield results: students who used Parla three times a week improved their "
    "speaking grades by a full level more than the control class.",
    "That's incredible, that goes in every deck.",
    "Their head of languages, Mrs. Osei, wants to buy it for the whole school next year.",
    "Per student pricing?",
    "I said 15 per student per year, with teacher dashboards. She didn't blink.",
    "So we are an edtech company after all.",
    "A little bit. Samir says the term sheet is fine except the 2x liquidation preference, "
    "he wants it at 1x.",
    "Let's push back on that then. I'll write to Oliver.",
    labels={0: "greenfield-results", 2: "osei", 4: "school-pricing", 6: "liquidation"},
)

D11 = day(
    "d11",
    "2024-05-06",
    "Oliver agreed to 1x. We're signing on Thursday!",
    "We did it. I'm a bit emotional.",
    "Me too. Now the hard part: hiring. First hire is a senior engineer.",
    "And we keep the price? Some people in the community asked for a family plan.",
    "Let's add a family plan for up to 4 people at 14.99 a month, and keep individual "
    "prices as they are.",
    "Good. Monthly stays 8.99 then.",
    labels={0: "signing", 4: "family-plan"},
)

STANDUP = (
    "Morning. I'm going through the support inbox first, then the roadmap.",
    "Morning! I'm on the onboarding bug today, the one where the level test restarts.",
    "Did you see the new reviews on the store? Mostly good.",
    "One person says the app is too expensive, as usual.",
    "Can we move our call to 3? I have a dentist appointment.",
    "Sure, 3 works.",
    "The server bill for last month came in, a bit higher than usual.",
    "That's the tutor usage, it grew a lot. Still within budget.",
    "I'm meeting the accountant on Thursday about the quarterly numbers.",
    "Ask her about the R&D tax credit while you're there.",
    "The newsletter went out, 38% open rate.",
    "Not bad at all. Which subject line did you use in the end?",
    "I think we should clean up the backlog, it's at 140 tickets.",
    "Let's do it on Friday afternoon, with coffee and no meetings.",
    "Heads up, I'm offline tomorrow morning, family stuff.",
    "No problem, I'll cover support.",
    "Our Discord passed 2,000 members today.",
    "Crazy. We should thank the people who answer questions there.",
    "The Spanish lessons for level B1 are finished, can you review them?",
    "I'll go through them tonight.",
    "Time for a team lunch soon? It's been a while since we all met in person.",
    "Yes, next week. I'll book the place near the office.",
    "I keep getting emails from agencies wanting to do our marketing.",
    "Ignore them, we have no budget for that anyway.",
    "The app crashed for a few users on Android 10 this morning, fixing it now.",
    "Thanks. Let me know when the fix is out so I can reply to them.",
    "I spent the whole day on the investor update, it's finally done.",
    "Send it my way before it goes out, I want to check the numbers.",
    "Can you look at the new onboarding screens when you have a minute?",
    "They look great, only the progress bar feels too big.",
    "Going to the co-working space today, the wifi at home is down.",
    "Good luck, the coffee there is terrible.",
    "The pricing page has a typo in the yearly plan, fixing it.",
    "Keiko sent the new icons, they look great.",
    "Northwind sent their newsletter again, I keep meaning to unsubscribe.",
    "Greenfield asked for the login instructions for teachers.",
    "The tutor mixed up Spanish and Portuguese in one reply today, logging it.",
    "Marta says people keep asking about a dark mode.",
    "The App Store screenshots need updating for the new design.",
    "Samir says hi, he's using the app to learn Portuguese.",
    "The grant report is due at the end of the month.",
    "Oliver asked for the monthly numbers, I'll send them Friday.",
    "Should we go to the edtech conference in Berlin? The tickets are pricey.",
    "I'm meeting a possible engineer candidate for coffee tomorrow.",
    "Downloads dipped this week, probably the holidays.",
    "The voice feature had a bug with accents, fixed now.",
)

CHATS = by_day(
    D1,
    D2,
    D3,
    D4,
    D5,
    D6,
    D7,
    D8,
    D9,
    D10,
    D11,
    *chatters("work", 16, 61, ("2023-09-06", "2024-05-20"), STANDUP, TITLE),
)

QUESTIONS = (
    Q(
        "fnd-01",
        ("decision",),
        "Which languages did we decide to launch with?",
        "launch languages",
        ("launch-languages",),
    ),
    Q(
        "fnd-02",
        ("fact", "vocabulary"),
        "How did Dana and Ibrahim split ownership of the company?",
        "ownership split founders",
        ("equity-split",),
    ),
    Q(
        "fnd-03",
        ("superseded", "fact"),
        "How much does Parla cost per month?",
        "monthly price",
        ("pricing-v2",),
    ),
    Q(
        "fnd-04",
        ("multi_chat", "superseded"),
        "How has our pricing changed since the first plan?",
        "pricing changes",
        ("pricing-v1", "pricing-v2", "family-plan"),
    ),
    Q(
        "fnd-05",
        ("names", "possessive"),
        "What's Keiko's day rate?",
        "Keiko day rate",
        ("keiko-rate",),
    ),
    Q(
        "fnd-06",
        ("names",),
        "Who introduced us to the designer and where had she worked before?",
        "designer Keiko meditation app",
        ("keiko-intro",),
    ),
    Q(
        "fnd-07",
        ("when", "fact"),
        "When did the grant money come through and how much was it?",
        "Innovate grant",
        ("grant",),
    ),
    Q(
        "fnd-08",
        ("fact",),
        "What does one conversation with the AI tutor cost us?",
        "AI tutor cost per conversation",
        ("tutor-cost",),
    ),
    Q(
        "fnd-09",
        ("decision", "vocabulary"),
        "Did we launch with talking to the tutor out loud?",
        "voice tutor speech",
        ("voice-experiment",),
    ),
    Q(
        "fnd-10",
        ("names", "when"),
        "When did Dana meet Northwind Ventures, and who was there?",
        "Northwind Ventures meeting",
        ("northwind-meeting",),
    ),
    Q(
        "fnd-11",
        ("names", "possessive"),
        "What was Oliver's concern about the company?",
        "Oliver Northwind concern",
        ("oliver-concern",),
    ),
    Q(
        "fnd-12",
        ("vocabulary",),
        "Why did people not upgrade to paid during the beta?",
        "beta users not upgrading",
        ("beta-feedback",),
    ),
    Q(
        "fnd-13",
        ("identifier",),
        "Why did Apple reject the app under guideline 3.1.1?",
        "App Store rejection 3.1.1",
        ("app-store-rejection",),
    ),
    Q(
        "fnd-14",
        ("when",),
        "When did we launch publicly?",
        "public launch date",
        ("launch-date",),
    ),
    Q(
        "fnd-15",
        ("fact",),
        "How many downloads did we get in the launch week?",
        "launch week downloads",
        ("launch-numbers",),
    ),
    Q(
        "fnd-16",
        ("names", "decision"),
        "Who did we hire for customer support?",
        "support hire",
        ("marta-support",),
    ),
    Q(
        "fnd-17",
        ("names", "fact"),
        "What were the terms of Northwind's seed offer?",
        "seed round valuation",
        ("seed-terms",),
    ),
    Q(
        "fnd-18",
        ("possessive", "names"),
        "Who's Ibrahim's cousin and how did he help?",
        "Ibrahim cousin lawyer",
        ("samir-lawyer",),
    ),
    Q(
        "fnd-19",
        ("multi_chat", "names"),
        "What happened with the Greenfield Academy pilot?",
        "Greenfield Academy pilot",
        ("greenfield-pilot", "greenfield-results"),
    ),
    Q(
        "fnd-20",
        ("fact",),
        "What price did we give the school per student?",
        "school per student price",
        ("school-pricing",),
    ),
    Q(
        "fnd-21",
        ("multi_chat", "vocabulary"),
        "What did the lawyer not like in the investment terms and did it get fixed?",
        "liquidation preference",
        ("liquidation", "signing"),
    ),
    Q(
        "fnd-22",
        ("when",),
        "When did we sign the seed round?",
        "signing seed round",
        ("signing",),
    ),
    Q(
        "fnd-23",
        ("possessive", "fact"),
        "We don't have a family plan yet, do we?",
        "family plan",
        ("family-plan",),
    ),
    Q(
        "fnd-24",
        ("names", "possessive"),
        "What's Mrs. Osei's role at Greenfield?",
        "Osei Greenfield",
        ("osei",),
    ),
    Q(
        "fnd-25",
        ("vocabulary",),
        "How much did the kids' speaking improve at the school?",
        "students speaking grades improvement",
        ("greenfield-results",),
    ),
    Q(
        "fnd-26",
        ("fact",),
        "What share of beta users were still active after a month?",
        "beta retention",
        ("northwind-meeting",),
    ),
    Q(
        "fnd-27",
        ("names",),
        "Who wants to lead our seed round?",
        "lead seed round investor",
        ("seed-terms",),
    ),
    Q(
        "fnd-28",
        ("superseded",),
        "How many free conversations do people get each week now?",
        "free tier conversations week",
        ("pricing-v2",),
    ),
    Q(
        "fnd-29",
        ("names",),
        "What's the name of the school that ran the pilot?",
        "school pilot",
        ("greenfield-pilot",),
    ),
    Q(
        "fnd-30",
        ("names", "fact"),
        "What do we use to turn the learner's speech into text?",
        "speech to text voice",
        ("whisper",),
    ),
    Q(
        "fnd-31",
        ("fact",),
        "Who wrote the long thread about us after the launch?",
        "thread about us launch",
        ("porto-thread",),
    ),
    Q(
        "fnd-32",
        ("superseded", "names"),
        "Did the liquidation preference end up at 2x?",
        "liquidation preference",
        ("signing",),
    ),
    Q(
        "fnd-33",
        ("when",),
        "When did the press embargo lift for the launch?",
        "press embargo",
        ("launch-date",),
    ),
    Q(
        "fnd-34",
        ("vague",),
        "How did Dana and Ibrahim divide ownership of the company?",
        "Dana Ibrahim company shares",
        ("equity-split",),
        distractors=("d10",),
    ),
    Q(
        "fnd-35",
        ("vague",),
        "How much does the designer charge?",
        "designer charge",
        ("keiko-rate",),
        distractors=("d02",),
    ),
    Q(
        "fnd-36",
        ("unanswerable",),
        "Did Parla ever launch in Japan?",
        "Parla Japan launch",
        (),
        distractors=("d01",),
    ),
    Q(
        "fnd-37",
        ("unanswerable",),
        "Who did Dana and Ibrahim hire as CTO?",
        "hire CTO",
        (),
    ),
    Q(
        "fnd-38",
        ("unanswerable",),
        "Did they open an office in Berlin?",
        "Berlin office",
        (),
        distractors=("work-10",),
    ),
)

APP = App(6, "founders", CHATS, QUESTIONS)
