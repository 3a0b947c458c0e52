"""Two friends, Priya and Tomás, talking over a year in a messaging app whose history is
imported (no assistant: their lines alternate the host's two roles, Priya first). Each
chat is one sitting; people, pets, trips, jobs, dates, and plenty of everyday words."""

from __future__ import annotations

from tests.evaluation.corpus import App, Chat, P, Q, by_day, chatters


def session(key: str, day: str, *lines: str, labels: dict[int, str] | None = None) -> Chat:
    return Chat(key, None, day, P(*lines, labels=labels), peer=True)


S1 = session(
    "s01",
    "2023-03-04",
    "Hey! Long time. How are things going with you?",
    "Hey Priya! Things are good, busy. Work at the bank is the usual, long days and "
    "meetings about meetings. You?",
    "I finally signed up for that pottery class I kept talking about. Thursday evenings at "
    "the community studio on Carver Street.",
    "No way, that's great. Is it hard? I always imagine it going wrong on the wheel.",
    "It went wrong a lot the first night, haha. The teacher, Mr. Adeyemi, is really patient "
    "though. He's been throwing pots for thirty years.",
    "That's the kind of teacher you want. Did you make anything?",
    "A very lopsided bowl. I'm going to glaze it blue next week and give it to my mum.",
    "She'll love it whatever it looks like. My band has a gig on the 18th by the way, you "
    "should come.",
    "The Low Tides are playing again? Where?",
    "The Anchor, the pub near the river. We've got three new songs.",
    "I'll be there. How long have you guys been playing together now?",
    "Since uni, so about eight years. Same four of us the whole time, which is kind of a miracle.",
    "That really is. Okay I have to go, the dog needs a walk.",
    "Say hi to Biscuit from me!",
    labels={
        2: "pottery-signup",
        4: "pottery-teacher",
        8: "band-name",
        9: "gig-venue",
        11: "band-years",
    },
)

S2 = session(
    "s02",
    "2023-03-26",
    "The gig was so much fun, you guys sounded amazing.",
    "Thanks for coming! It meant a lot. Did you like the new songs?",
    "The slow one, the one about the lighthouse, was my favourite.",
    "That one's Dani's, she wrote it after her grandad passed away.",
    "That explains why it hit so hard. How is Dani doing?",
    "Better. She's going to play it at his memorial in May.",
    "That's lovely. By the way, Biscuit had his first birthday on Saturday.",
    "A year already! What did you do for him?",
    "A dog-safe cake from the bakery on Elm Road and a new squeaky duck. He destroyed the "
    "duck in about ten minutes.",
    "Classic. Is he still a nightmare on walks?",
    "Much better since the training course. He only pulls when he sees squirrels now.",
    "So constantly, then.",
    "Pretty much, haha.",
    labels={3: "lighthouse-song", 6: "biscuit-birthday"},
)

S3 = session(
    "s03",
    "2023-04-20",
    "Can I tell you something? I'm thinking of leaving the bank.",
    "Oh wow. Really? What happened?",
    "Nothing dramatic. I just don't want to spend another ten years on loan compliance "
    "reports. A friend from uni, Rafael, is starting a company that makes software for "
    "farmers and he asked me to join.",
    "That's exciting! What would you do there?",
    "Operations, and some product stuff. It's a big pay cut though, and Lucía is worried "
    "about the mortgage.",
    "That's fair. What does your gut say?",
    "That I'll regret it if I don't try. But I keep going back and forth.",
    "Maybe talk it through with Lucía with real numbers, like how many months you could "
    "manage on the lower salary.",
    "Good idea. We'll sit down this weekend and do a spreadsheet.",
    "Let me know how it goes. I'm rooting for you either way.",
    labels={2: "rafael-offer", 4: "pay-cut"},
)

S4 = session(
    "s04",
    "2023-05-14",
    "So... I said yes to Rafael!",
    "TOMÁS! Congratulations! When do you start?",
    "The first of June. I handed in my notice at the bank on Friday.",
    "How did they take it?",
    "My manager tried to keep me with a raise, which was awkward, but I'd already decided. "
    "Lucía and I worked out we can manage for a year on savings if it goes badly.",
    "That's really brave. What's the company called again?",
    "Fieldwise. Sensors and an app that tell farmers when to water. Small team, six people.",
    "I love that. Meanwhile my news is much smaller: my pottery teacher says I'm ready for "
    "the intermediate class.",
    "That's not small! Are you still making bowls?",
    "Mugs now. I made a set of four for my sister Meera's new flat.",
    "That's a very good sister present.",
    "She cried a little, which made me cry a little.",
    labels={2: "start-date", 6: "fieldwise", 9: "meera-mugs"},
)

S5 = session(
    "s05",
    "2023-06-18",
    "How's the new job going? You've been there two weeks right?",
    "Almost three. It's chaos but good chaos. I've been out to farms twice already, "
    "installing sensors in the mud.",
    "A banker in wellies, I love it.",
    "Haha. The hardest part is that nobody tells you what to do. At the bank everything had "
    "a process.",
    "Do you miss it?",
    "Not the work. I miss the people a bit, and I definitely miss the salary.",
    "How's Lucía about it now?",
    "She's come around. She came to one of the farms with me and fell in love with the goats.",
    "Of course she did. Oh, I have news: I'm going to Lisbon in August with Meera!",
    "Amazing, for how long?",
    "Ten days. We're staying in Alfama and doing a day trip to Sintra.",
    "You have to eat pastéis de nata at the place in Belém, the original one.",
    "It's already on the list, don't worry.",
    labels={8: "lisbon-plan", 10: "lisbon-details"},
)

S6 = session(
    "s06",
    "2023-08-29",
    "I'm back from Lisbon! I'm tired and so sunburnt.",
    "Welcome back! How was it?",
    "Incredible. Sintra was like a fairy tale, and we went to a fado night that made Meera "
    "cry again. She cries at everything.",
    "Did you get the pastéis de nata?",
    "Three times. You were right, the ones in Belém are better.",
    "Told you. Anything go wrong?",
    "I lost my phone on the tram on day three. Someone handed it in to the police station, "
    "which I still can't believe.",
    "That's amazing luck. How's Biscuit after ten days without you?",
    "He stayed with my parents and now he won't stop following my dad around.",
    "Traitor. Over here the news is not great: I hurt my knee playing football with the "
    "team from work.",
    "Oh no, what happened?",
    "Twisted it on a bad tackle. I'm seeing a specialist next week, they think it might be "
    "the ligament.",
    "I'm so sorry. Keep me posted.",
    labels={0: "lisbon-back", 6: "lost-phone", 9: "knee-injury"},
)

S7 = session(
    "s07",
    "2023-10-03",
    "How did the knee appointment go?",
    "It's the ACL, torn. I had the surgery on the 21st of September and now it's months of physio.",
    "Oh Tomás. How are you coping?",
    "The first week was rough, I couldn't get up the stairs. Lucía has been a saint. Work "
    "let me do everything from home.",
    "Do they know how long recovery takes?",
    "Six to nine months before football. I'm going to physio twice a week. No gigs with the "
    "band until December at least.",
    "The Low Tides without you? Does Dani cover?",
    "We just pause, we're not the same band with a stand-in drummer.",
    "Fair. Anything I can do? I could bring food.",
    "Honestly, come by with Biscuit some afternoon. I'm going stir crazy.",
    "Deal. Saturday?",
    "Perfect.",
    labels={1: "acl-surgery", 5: "recovery"},
)

S8 = session(
    "s08",
    "2023-11-12",
    "Guess who signed up for a half marathon in April.",
    "You?! You said running was for people who hate themselves.",
    "I know, I know. The pottery crowd roped me in, there's a group of five of us training "
    "together, we run on Sunday mornings by the canal.",
    "That's the best way to do it, with people. Which race?",
    "The Riverside Half on April 14th. I've never run more than 10k.",
    "You've got five months, that's plenty. What's your plan?",
    "A beginner plan from an app, three runs a week. My long run is up to 8k.",
    "I'm jealous, I'd love to be running again. My physio says maybe jogging in February.",
    "You'll get there. How is work?",
    "We just got our first big customer, a cooperative of forty farms in the valley. "
    "Rafael took the whole team out for dinner.",
    "That's huge for a six-person company!",
    "It is. It also means I'm now in charge of onboarding forty farms, so pray for me.",
    labels={2: "running-group", 4: "half-marathon", 9: "first-customer"},
)

S9 = session(
    "s09",
    "2023-12-20",
    "Are you going home for Christmas?",
    "Yes, to Valencia for a week, with Lucía. My parents haven't met her family yet, so "
    "both families are having dinner on the 26th. Terrifying.",
    "It'll be fine, everyone loves Lucía.",
    "True. And you?",
    "Staying here. My grandmother is teaching me her biryani recipe on Christmas Eve, she "
    "says I'm finally old enough.",
    "I'm honoured on your behalf. Is it a secret recipe?",
    "The secret is apparently a lot of fried onions and patience. And she won't write it "
    "down, so I'm going to film her.",
    "Smart. Send me a plate.",
    "Only if you send me some of your mum's turrón.",
    "Deal.",
    labels={1: "valencia-christmas", 6: "biryani-secret"},
)

S10 = session(
    "s10",
    "2024-01-28",
    "How was Christmas with both families?",
    "Better than expected! My dad and Lucía's dad bonded over football. And... I asked "
    "Lucía to marry me on New Year's Eve.",
    "WHAT. Tomás!! Congratulations!!! What did she say?",
    "She said yes, obviously, after laughing for a whole minute because I couldn't get down "
    "on one knee with my bad leg.",
    "That's the best proposal story I've ever heard.",
    "We're thinking of a small wedding in September, in Valencia.",
    "I'm so happy for you both. How's the knee now?",
    "Good, I'm jogging a little. Physio says football in the spring.",
    "And I have sadder news: Biscuit has to have a tooth removed next week. The vet says "
    "it's routine but I'm nervous.",
    "He'll be fine. Routine is routine. Let me know how it goes.",
    labels={1: "proposal", 5: "wedding-plan", 7: "knee-january", 8: "biscuit-tooth"},
)

S11 = session(
    "s11",
    "2024-03-09",
    "Biscuit is fully recovered by the way, tooth gone, no drama.",
    "Good boy. How's the training going?",
    "My long run is 16k now. I'm slow but I'm going to finish.",
    "You'll smash it. I'll come and cheer at the finish line.",
    "Please do. Meera is making a sign.",
    "Of course she is. Any pottery news?",
    "Mr. Adeyemi asked me to help teach the beginners' class on Mondays. I said yes before "
    "thinking, which is how I end up doing everything.",
    "That's a big compliment though.",
    "It is. Okay, tell me about the wedding.",
    "Date is set: the 21st of September, at a farmhouse outside Valencia. About 60 people. "
    "You're invited, obviously, and you can bring someone.",
    "I wouldn't miss it. I'll start looking at flights.",
    labels={6: "teaching", 9: "wedding-date"},
)

S12 = session(
    "s12",
    "2024-04-16",
    "I DID IT. Two hours and eleven minutes!",
    "You finished the half marathon! I saw you at the 18k mark, you looked so focused.",
    "I was focused on not dying. Thank you for coming, and for the coffee after.",
    "What's next, a full one?",
    "Absolutely not. Maybe a 10k in the autumn. What about you, any news from Fieldwise?",
    "Rafael and I are raising a small seed round. We pitched to three investors last week; "
    "one of them, a woman called Helen Brooks from a farming fund, wants a second meeting.",
    "That's so exciting. Does that mean you'd get your salary back up?",
    "Partly. Lucía made me promise that if we raise, I stop working weekends.",
    "She's right.",
    "She usually is, don't tell her I said that.",
    labels={0: "marathon-time", 5: "seed-round"},
)

SMALL_TALK = (
    "Hey Tomás, how's your week going?",
    "Hey Priya! Pretty good, a lot going on at work but nothing exciting.",
    "Did you watch the new season of that detective show?",
    "Not yet, Lucía wants to watch it together so I'm not allowed to go ahead.",
    "Fair enough. It's really good though, the second episode especially.",
    "I went to the market on Saturday, the strawberries are finally good again.",
    "I'm so tired today, I didn't sleep well at all.",
    "Same here, the neighbours had a party until 2am.",
    "Are you going to the quiz night on Wednesday?",
    "Maybe, depends on work. I'll let you know by tomorrow.",
    "I've been meaning to call you for ages, time just goes so fast.",
    "I know, it's been a crazy month. Let's meet for coffee soon.",
    "The weather has been awful, it rained the whole weekend.",
    "We stayed in and cooked, which was actually really nice.",
    "What did you cook?",
    "A big pot of lentil soup, enough for the whole week.",
    "I finished that book you lent me, I loved the ending.",
    "Told you! I cried at the last chapter, don't judge me.",
    "How's your mum doing?",
    "She's good, busy with her garden as usual. She says hi.",
    "Biscuit found a tennis ball in the park and won't let go of it.",
    "Ha, he has his priorities straight.",
    "I'm going to try that new Thai place on Friday, want to come?",
    "I'd love to but we're meeting Lucía's friends that night.",
    "Work has been really slow this week, I'm almost bored.",
    "Enjoy it while it lasts, it never stays quiet for long.",
    "Did you see the photos I sent? The sunset from the hill.",
    "They're gorgeous, you should print one.",
    "I keep meaning to go to the gym and then I just don't.",
    "Honestly, a walk counts. Don't be so hard on yourself.",
    "Long day. I'm going to bed early tonight.",
    "Good idea, sleep well and talk soon!",
    "What are you up to this weekend?",
    "Not much, maybe a long walk and a film. You?",
    "Meeting some friends for brunch on Sunday, then nothing at all.",
    "That sounds perfect. I'm going to do exactly that too.",
    "I got a parking ticket today, outside my own house.",
    "That's so annoying, I'm sorry. Can you appeal it?",
    "Did you hear back about the flat upstairs?",
    "Still waiting. Landlords take forever to answer anything.",
    "Biscuit chewed one of my shoes again, the left one this time.",
    "My pottery class was cancelled this week, the kiln is broken.",
    "The band is rehearsing on Sunday, I'm just going to listen.",
    "Lucía says hi, by the way.",
    "Meera is coming over for dinner tomorrow, she's bringing dessert.",
    "My knee is a bit sore after all the stairs at the station.",
    "Rafael called me on a Saturday again, I need to set boundaries.",
    "I'm going for a run in the morning before work.",
    "I finally printed some of the Lisbon photos for my wall.",
    "The bank called about my card, it was just a fraud check.",
    "Have you been to the new bakery on Elm Road? The bread is great.",
    "I met Dani in town yesterday, she says hi.",
    "My grandmother called, she wants us all for lunch on Sunday.",
    "Work sent me to a training day, it was so long.",
    "I'm thinking of getting a bike for the commute.",
    "Are you still going to that football match with your colleagues?",
)

CHATS = by_day(
    S1,
    S2,
    S3,
    S4,
    S5,
    S6,
    S7,
    S8,
    S9,
    S10,
    S11,
    S12,
    *chatters("talk", 18, 51, ("2023-03-08", "2024-04-30"), SMALL_TALK),
)

QUESTIONS = (
    Q(
        "frd-01",
        ("names", "possessive"),
        "Who is Priya's pottery teacher?",
        "pottery teacher",
        ("pottery-teacher",),
    ),
    Q(
        "frd-02",
        ("possessive", "fact"),
        "How long has Tomás's band been together?",
        "band together years",
        ("band-years",),
    ),
    Q(
        "frd-03",
        ("names", "possessive"),
        "What's the name of Priya’s dog and when was his first birthday?",
        "dog birthday",
        ("biscuit-birthday",),
    ),
    Q(
        "frd-04",
        ("names",),
        "Who wrote the song about the lighthouse?",
        "lighthouse song",
        ("lighthouse-song",),
    ),
    Q(
        "frd-05",
        ("multi_chat", "names"),
        "What did Tomás go through before joining Rafael's company?",
        "Tomás leaving bank Rafael company",
        ("rafael-offer", "start-date"),
    ),
    Q(
        "frd-06",
        ("when",),
        "When did Tomás start his new job?",
        "Tomás start new job",
        ("start-date",),
    ),
    Q(
        "frd-07",
        ("names", "fact"),
        "What does Tomás's new company make?",
        "Fieldwise company",
        ("fieldwise",),
    ),
    Q(
        "frd-08",
        ("possessive", "names"),
        "What did Priya make for her sister's new flat?",
        "Meera flat gift",
        ("meera-mugs",),
    ),
    Q(
        "frd-09",
        ("multi_chat",),
        "Where did Priya go on holiday in the summer and who went with her?",
        "Lisbon trip Meera",
        ("lisbon-plan", "lisbon-details"),
    ),
    Q(
        "frd-10",
        ("fact",),
        "What happened to Priya's phone on the trip?",
        "lost phone tram",
        ("lost-phone",),
    ),
    Q(
        "frd-11",
        ("when", "fact"),
        "When did Tomás have his knee operation?",
        "knee surgery date",
        ("acl-surgery",),
    ),
    Q(
        "frd-12",
        ("vocabulary",),
        "How did Tomás hurt himself?",
        "Tomás injury",
        ("knee-injury",),
    ),
    Q(
        "frd-13",
        ("multi_chat",),
        "How has Tomás's recovery gone since the injury?",
        "knee recovery physio",
        ("acl-surgery", "recovery"),
    ),
    Q(
        "frd-14",
        ("when",),
        "When is Priya's half marathon?",
        "half marathon date",
        ("half-marathon",),
    ),
    Q(
        "frd-15",
        ("names",),
        "Who does Priya train for running with?",
        "running training group",
        ("running-group",),
    ),
    Q(
        "frd-16",
        ("fact",),
        "Who was Fieldwise's first big customer?",
        "first big customer",
        ("first-customer",),
    ),
    Q(
        "frd-17",
        ("possessive", "fact"),
        "What's the secret to Priya's grandmother's biryani?",
        "grandmother biryani recipe",
        ("biryani-secret",),
    ),
    Q(
        "frd-18",
        ("when",),
        "When did Tomás propose to Lucía?",
        "Tomás proposal Lucía",
        ("proposal",),
    ),
    Q(
        "frd-19",
        ("when", "superseded"),
        "When and where is the wedding?",
        "wedding date place",
        ("wedding-date",),
    ),
    Q(
        "frd-20",
        ("fact",),
        "Why did Biscuit go to the vet?",
        "Biscuit vet",
        ("biscuit-tooth",),
    ),
    Q(
        "frd-21",
        ("possessive", "fact"),
        "What's Priya's new role at the pottery studio?",
        "pottery studio teaching beginners",
        ("teaching",),
    ),
    Q(
        "frd-22",
        ("fact",),
        "What was Priya's finishing time in the half marathon?",
        "half marathon finishing time",
        ("marathon-time",),
    ),
    Q(
        "frd-23",
        ("names",),
        "Which investor wants a second meeting with Fieldwise?",
        "investor second meeting",
        ("seed-round",),
    ),
    Q(
        "frd-24",
        ("possessive", "vocabulary"),
        "Why wasn't Lucía happy about Tomás leaving the bank at first?",
        "Lucía worried leaving bank",
        ("pay-cut",),
    ),
    Q(
        "frd-25",
        ("when", "multi_chat"),
        "When did Priya travel to Lisbon and when did she get back?",
        "Lisbon August back",
        ("lisbon-plan", "lisbon-back"),
    ),
    Q(
        "frd-26",
        ("possessive", "names"),
        "Where's Tomás going for Christmas, and who's he meeting there?",
        "Christmas Valencia families",
        ("valencia-christmas",),
    ),
    Q(
        "frd-27",
        ("names", "when"),
        "When did Priya start taking pottery classes?",
        "pottery class start",
        ("pottery-signup",),
    ),
    Q(
        "frd-28",
        ("names", "possessive"),
        "What's the name of Tomás's band?",
        "band name",
        ("band-name",),
    ),
    Q(
        "frd-29",
        ("names", "vocabulary"),
        "Who is Tomás engaged to?",
        "Tomás engaged proposal",
        ("proposal",),
    ),
    Q(
        "frd-30",
        ("names",),
        "Where did the band play the gig with the new songs?",
        "gig pub",
        ("gig-venue",),
    ),
    Q(
        "frd-31",
        ("names",),
        "What's the name of the investor from the farming fund?",
        "investor farming fund",
        ("seed-round",),
    ),
    Q(
        "frd-32",
        ("superseded",),
        "When can Tomás play football again?",
        "Tomás football knee",
        ("knee-january",),
    ),
    Q(
        "frd-33",
        ("names", "possessive"),
        "Where did Priya get the cake for Biscuit's birthday?",
        "Biscuit birthday cake",
        ("biscuit-birthday",),
    ),
    Q(
        "frd-34",
        ("names",),
        "Who is Rafael?",
        "Rafael",
        ("rafael-offer",),
    ),
    Q(
        "frd-35",
        ("vague",),
        "What happened to Tomás at football?",
        "Tomás football",
        ("knee-injury",),
        distractors=("talk-15",),
    ),
    Q(
        "frd-36",
        ("vague", "possessive"),
        "What extra job did Priya take on at pottery?",
        "Priya pottery extra job",
        ("teaching",),
        distractors=("talk-16",),
    ),
    Q(
        "frd-37",
        ("vague",),
        "What are Tomás and Lucía planning after getting engaged?",
        "Tomás Lucía plans",
        ("wedding-plan",),
        distractors=("s07",),
    ),
    Q(
        "frd-38",
        ("unanswerable",),
        "Did Priya ever go skiing?",
        "Priya skiing trip",
        (),
    ),
    Q(
        "frd-39",
        ("unanswerable",),
        "Where did Priya go to university?",
        "Priya university",
        (),
    ),
    Q(
        "frd-40",
        ("unanswerable",),
        "What's the name of Tomás's cat?",
        "Tomás cat name",
        (),
    ),
)

APP = App(5, "friends", CHATS, QUESTIONS)
