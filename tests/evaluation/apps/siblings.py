"""Two siblings, Leila (a nurse in Manchester) and Sami (starting a PhD in Glasgow),
talking over a year in a messaging app whose history is imported (no assistant: their
lines alternate the host's two roles, whoever writes first in a sitting stored as the
user). Parents, a grandmother's birthday, a baby on the way, a move, a cat, holidays;
names, dates and a lot of small talk.

Written for the `vague` category: each question shares at most one content word with
the line that answers it, and names a sitting that holds its words without answering."""

from __future__ import annotations

from tests.evaluation.corpus import App, Chat, P, Q, by_day, chatters


def sitting(key: str, day: str, *lines: str, labels: dict[int, str] | None = None) -> Chat:
    return Chat(key, None, day, P(*lines, labels=labels), peer=True)


T1 = sitting(
    "t01",
    "2023-05-07",
    "Mum and Dad's 35th is in August. We should do something together this time.",
    "Agreed, last time we each sent flowers and they got two identical bouquets.",
    "Haha yes. Ideas?",
    "Something they'd never book themselves. They still talk about Whitby.",
    "OK final answer: we book them the weekend at the cottage in Whitby where they "
    "honeymooned, I'll pay the deposit and you do the card.",
    "Deal. I'll get Nana to sign it too.",
    "How's the job hunt going by the way?",
    "Two interviews next week, one in Leeds and the Glasgow PhD.",
    labels={4: "sb-whitby"},
)

T2 = sitting(
    "t02",
    "2023-05-29",
    "Marcus forgot our anniversary. Then turned up with a present from the petrol station.",
    "Oh no. What was the gift?",
    "A keyring shaped like a frog. I'm keeping it, it's so bad it's good.",
    "That's love right there.",
    "How did the Glasgow interview go?",
    "I think well? They asked about my dissertation for an hour.",
    labels={},
)

T3 = sitting(
    "t03",
    "2023-06-14",
    "I GOT IT. Glasgow, fully funded, starting in September.",
    "SAMI! I'm so proud of you! Mum's going to cry.",
    "She already did, on the phone, for ten minutes.",
    "So what's it actually about? Explain it like I'm a nurse, not a scientist.",
    "It's about how glaciers in Svalbard retreat, mostly satellite data and a lot of Python.",
    "So you're going to look at ice on a computer for four years.",
    "Basically, and one trip to the Arctic if the grant allows.",
    labels={4: "sb-phd"},
)

T4 = sitting(
    "t04",
    "2023-07-02",
    "Thanks for helping me move the sofa yesterday, Sami. My back is destroyed.",
    "Any time. Your new flat is lovely though, the light in the kitchen!",
    "It is. Marcus wants to paint everything grey, I said over my dead body.",
    "Sage green. Trust me.",
    labels={},
)

T5 = sitting(
    "t05",
    "2023-07-20",
    "Have you sorted out the van?",
    "Yes! The removal van comes on the 2nd of September, and I'll drive up with the plants "
    "the day after.",
    "You and your plants. How many now?",
    "Thirty-one. I'm not leaving them behind.",
    labels={1: "sb-move"},
)

T6 = sitting(
    "t06",
    "2023-08-12",
    "Mum texted from Whitby, they loved it. Dad even sent a selfie.",
    "A selfie! From Dad! It's blurry but it's the thought.",
    "Are you coming to Crete or is the PhD starting too early?",
    "I'm coming, I wouldn't miss it, flight's booked for the 18th.",
    labels={},
)

T7 = sitting(
    "t07",
    "2023-08-30",
    "Back from Crete and I already miss it.",
    "Crete was perfect. Dad swam every morning and Mum finally read a book cover to cover.",
    "And you got sunburnt on day one like every year.",
    "Tradition is tradition.",
    labels={1: "sb-crete"},
)

T8 = sitting(
    "t08",
    "2023-09-21",
    "How's Glasgow? Settled in?",
    "Getting there. My flatmate is doing research on peat bogs, the topic comes up at "
    "every dinner. Sami the glacier guy and Callum the bog guy.",
    "Sounds like a sitcom.",
    "It kind of is.",
    labels={},
)

T9 = sitting(
    "t09",
    "2023-10-15",
    "Can I tell you something before Mum and Dad? Don't say anything.",
    "Of course. What's up?",
    "I'm pregnant. The midwife says 14 March, give or take. We're keeping it quiet until "
    "the twelve-week scan.",
    "LEILA. I'm going to be an uncle?! My lips are sealed.",
    "We're telling them on Sunday. Pretend to be surprised.",
    "I will be the most surprised man in Lancashire.",
    labels={2: "sb-due"},
)

T10 = sitting(
    "t10",
    "2023-10-29",
    "Jo's baby shower was today. I'm now obsessed with tiny socks.",
    "Haha, how was it, Leila? Was Jo's baby shower fun?",
    "Loud. Forty women and one very confused husband.",
    "Sounds about right.",
    labels={},
)

T11 = sitting(
    "t11",
    "2023-11-08",
    "I met someone. Don't make it a thing.",
    "I'm making it a thing. Who?",
    "Her name's Ingrid, she's Norwegian, she does marine biology on the floor below mine.",
    "A scientist dating a scientist. Your kids will correct everyone's grammar.",
    "Slow down, we've been for coffee twice.",
    labels={2: "sb-ingrid"},
)

T12 = sitting(
    "t12",
    "2023-11-20",
    "Sami, guess who I saw at the station. Your old girlfriend from school, Hannah.",
    "No way. Is she still seeing that drummer?",
    "Married him! Two kids.",
    "Good for her honestly.",
    labels={},
)

T13 = sitting(
    "t13",
    "2023-11-28",
    "My car died on the way to a night shift.",
    "Oh no, what happened?",
    "The garage says the clutch is gone, £700, so I'm on the bus for a week.",
    "Ouch. Do you need help with the money?",
    "No, it's fine, but thank you.",
    labels={2: "sb-clutch"},
)

T14 = sitting(
    "t14",
    "2023-12-03",
    "Marcus says the car park at your hospital is full every morning, Leila. Is it?",
    "Every single morning. My car problem is now a bus problem anyway.",
    "Haha. How are you feeling? Any sickness?",
    "Mostly just tired. The baby is the size of a lemon apparently.",
    labels={},
)

T15 = sitting(
    "t15",
    "2023-12-10",
    "Did Mum decide about Christmas?",
    "Everyone at mine on the 25th, Mum is doing the turkey and you're on sprouts duty.",
    "Sprouts again. Fine. Can I bring Ingrid?",
    "Of course, Mum will interrogate her.",
    labels={1: "sb-christmas"},
)

T16 = sitting(
    "t16",
    "2023-12-15",
    "It's Christmas jumper day on the ward this year, I'm wearing the one with the llama.",
    "The one from Nana? Iconic. Any plans for New Year?",
    "Asleep by ten, probably. Sami, what are your Christmas plans after the 25th?",
    "Ingrid's family for New Year, in Bergen.",
    labels={},
)

T17 = sitting(
    "t17",
    "2024-01-09",
    "Could you take Pistachio while we're at Marcus's parents next week?",
    "I'll have Pistachio at mine for the week, just leave the food and the litter.",
    "You're a hero. She hates the carrier, wear gloves.",
    "Noted.",
    labels={1: "sb-pistachio"},
)

T18 = sitting(
    "t18",
    "2024-01-21",
    "Leila, did your cat ever make peace with the Christmas tree?",
    "She knocked it over twice. The tree has gone back to the loft, the cat won.",
    "She always wins.",
    "Always.",
    labels={},
)

T19 = sitting(
    "t19",
    "2024-02-04",
    "Dad's at the GP surgery for his flu jab this morning, he says his cold is gone.",
    "Full recovery then! Tell Dad to stop going out without a coat.",
    "He won't listen, he never does.",
    "True.",
    labels={},
)

T20 = sitting(
    "t20",
    "2024-02-18",
    "Dad's hip is finally booked for the 26th.",
    "Good, he's been limping for a year.",
    "I'll go down to be with Mum.",
    "Call me after, whatever the time.",
    labels={},
)

T21 = sitting(
    "t21",
    "2024-02-27",
    "He's home! The new hip is in, the surgeon was happy, he's already shuffling to the "
    "kitchen with the frame.",
    "Oh thank god. How's Mum holding up?",
    "Bossing him around, so back to normal.",
    "Give them both a hug from me.",
    labels={0: "sb-hip"},
)

T22 = sitting(
    "t22",
    "2024-02-24",
    "Nana went to her neighbour's party and won the raffle, a whole ham.",
    "Almost ninety and still winning raffles. What did she do with a whole ham?",
    "Gave half of it to the party host, apparently.",
    "Classic Nana.",
    labels={},
)

T22B = sitting(
    "t22b",
    "2024-03-03",
    "Nana rang to ask what she should wear in April.",
    "Ha. Speaking of which, have you booked anything?",
    "I've booked the back room at the Red Lion for Saturday 20 April, 40 people, buffet included.",
    "Perfect, she loves the Red Lion.",
    labels={2: "sb-red-lion"},
)

T23 = sitting(
    "t23",
    "2024-03-16",
    "He's here! Yusuf, 3.4 kilos, born at 6 this morning.",
    "LEILA!! Welcome to the world, Yusuf! How are you?",
    "Exhausted and in love.",
    "I'm coming down on Friday.",
    labels={},
)

T24 = sitting(
    "t24",
    "2024-04-02",
    "Mum told us something at lunch.",
    "What?",
    "She told the school she's leaving at the end of July, after 31 years.",
    "Wow. She'll be bored in a week.",
    "She's already signed up for Italian classes.",
    labels={2: "sb-mum-school"},
)

T25 = sitting(
    "t25",
    "2024-04-11",
    "Mum stopped by work with a cake for my team, they love her now.",
    "Of course she did. Did you pick a date for Yusuf's naming day?",
    "Mum wants the 9th of June, so that's the date.",
    "Noted.",
    labels={},
)

T26 = sitting(
    "t26",
    "2024-04-25",
    "Ingrid and I are going to Norway this summer, her family has a cabin. Our summer "
    "holiday sorted.",
    "So we lose you for the family holiday?",
    "Only one week of it, I'll do the second half of Crete.",
    "Acceptable.",
    labels={},
)

SMALL_TALK = (
    "Morning! How did you sleep?",
    "Badly, the neighbours' dog again.",
    "Did you watch the match last night?",
    "Only the second half, I fell asleep.",
    "It's been raining here all week.",
    "Same, I've forgotten what the sun looks like.",
    "What are you having for dinner?",
    "Pasta, as always.",
    "Mum called, she says hi.",
    "Tell her I'll call her on Sunday.",
    "I'm so tired today.",
    "Coffee. Lots of coffee.",
    "Have you seen the new series everyone talks about?",
    "Not yet, no spoilers please.",
    "The bus was late again this morning.",
    "Classic. Ours too.",
    "I started running again, week two.",
    "Proud of you, keep going.",
    "Nana sent me a postcard, she still writes in capitals.",
    "She did the same to me.",
    "I burnt the toast and set off the alarm.",
    "The whole building must love you.",
    "Long shift today, talk later?",
    "Sure, go rest.",
    "Look at this photo of Pistachio sleeping in the sink.",
    "That cat is not normal.",
    "Do you want anything from the shop?",
    "Just milk, thanks.",
    "My phone screen cracked again.",
    "You need a case, I keep telling you.",
    "Happy Friday!",
    "Finally. What a week.",
)

CHATS = by_day(
    T1,
    T2,
    T3,
    T4,
    T5,
    T6,
    T7,
    T8,
    T9,
    T10,
    T11,
    T12,
    T13,
    T14,
    T15,
    T16,
    T17,
    T18,
    T19,
    T20,
    T21,
    T22,
    T22B,
    T23,
    T24,
    T25,
    T26,
    *chatters("talk", 14, 111, ("2023-05-01", "2024-04-30"), SMALL_TALK),
)

QUESTIONS = (
    Q(
        "sib-01",
        ("vague", "decision"),
        "What present did we settle on for Mum and Dad's anniversary?",
        "anniversary gift parents",
        ("sb-whitby",),
        distractors=("t02",),
    ),
    Q(
        "sib-02",
        ("vague",),
        "How did Dad's surgery go?",
        "Dad operation recovery",
        ("sb-hip",),
        distractors=("t19",),
    ),
    Q(
        "sib-03",
        ("vague", "when"),
        "When is Sami moving up north?",
        "Sami moving date",
        ("sb-move",),
        distractors=("t04",),
    ),
    Q(
        "sib-04",
        ("vague", "when"),
        "When is Leila's baby expected?",
        "Leila baby due date",
        ("sb-due",),
        distractors=("t10",),
    ),
    Q(
        "sib-05",
        ("vague",),
        "Where are we having the party for Nana turning ninety?",
        "Nana 90th birthday party venue",
        ("sb-red-lion",),
        distractors=("t22",),
    ),
    Q(
        "sib-06",
        ("vague",),
        "How was the family holiday last summer?",
        "family summer holiday",
        ("sb-crete",),
        distractors=("t26",),
    ),
    Q(
        "sib-07",
        ("vague",),
        "Who looked after the cat while Leila was away?",
        "cat sitter Leila away",
        ("sb-pistachio",),
        distractors=("t18",),
    ),
    Q(
        "sib-08",
        ("vague", "names"),
        "What's the name of the woman Sami is seeing?",
        "Sami girlfriend",
        ("sb-ingrid",),
        distractors=("t12",),
    ),
    Q(
        "sib-09",
        ("vague",),
        "What was wrong with Leila's car?",
        "Leila car problem",
        ("sb-clutch",),
        distractors=("t14",),
    ),
    Q(
        "sib-10",
        ("vague",),
        "Where are we spending Christmas this year?",
        "Christmas plans this year",
        ("sb-christmas",),
        distractors=("t16",),
    ),
    Q(
        "sib-11",
        ("vague",),
        "What is Sami researching for his doctorate?",
        "Sami PhD research topic",
        ("sb-phd",),
        distractors=("t08",),
    ),
    Q(
        "sib-12",
        ("vague", "when"),
        "When does Mum stop working?",
        "Mum retirement date",
        ("sb-mum-school",),
        distractors=("t25",),
    ),
    Q(
        "sib-13",
        ("unanswerable",),
        "Did Sami ever get his driving licence?",
        "Sami driving licence",
        (),
    ),
    Q(
        "sib-14",
        ("unanswerable",),
        "What did Leila name her new puppy?",
        "Leila puppy name",
        (),
    ),
    Q(
        "sib-15",
        ("unanswerable",),
        "Which wedding venue did Sami and Ingrid book?",
        "Sami Ingrid wedding venue",
        (),
        distractors=("t16",),
    ),
)

APP = App(11, "siblings", CHATS, QUESTIONS)
