"""Pantry: a recipe and meal-planning app. Nutrition data, units, offline mode (its
conflict handling changed later), sharing, the shopping list, premium pricing (changed
later), recipe import, allergens, Japanese recipes, the week's start day."""

from __future__ import annotations

from tests.evaluation.corpus import A, App, Chat, Q, U, by_day, error, fillers, sql, think, write

NUTRITION = Chat(
    "nutrition",
    "Calories and macros",
    "2024-02-02",
    (
        U("I want every recipe to show calories and protein/carbs/fat per serving."),
        A(
            "We need a food composition database. Candidates: Edamam (paid API, good "
            "parsing of free-text ingredients), Nutritionix (paid), USDA FoodData Central "
            "(free, public domain, needs us to map ingredients ourselves)."
        ),
        U("Free is good. How bad is the mapping?"),
        A(
            "We'd match each ingredient line to an FDC food id once and store it; the user "
            "can correct a wrong match. The FDC API allows 1,000 requests per hour per key."
        ),
        U("go with the free one"),
        A(
            "Nutrition data comes from USDA FoodData Central. Each ingredient is matched to "
            "an FDC id, and the nutrient values are cached in our database for 30 days so we "
            "stay far below the 1,000 requests per hour limit. Edamam was rejected on cost.",
            "nutrition-source",
        ),
        U("Show it per serving, and round it."),
        A(
            "Per-serving values are rounded: calories to the nearest 5, macros to whole "
            "grams.\n" + write("src/lib/nutrition/per-serving.ts", "per-serving rounding")
        ),
        U("The numbers for 'a pinch of salt' are weird"),
        A(
            "Quantities like 'a pinch' or 'to taste' now count as zero for nutrition; they "
            "were parsed as 1 gram-equivalent cups before."
        ),
    ),
)

UNITS = Chat(
    "units",
    "Units",
    "2024-02-09",
    (
        U(
            "Half my users are American and want cups and ounces, the rest want grams. How "
            "do we handle both?"
        ),
        A(
            think("Canonical storage plus display conversion.")
            + "Store every quantity canonically (grams for solids, millilitres for liquids) "
            "and convert at display time according to a per-user setting, metric or US "
            "customary. Converting volume to weight (a cup of flour vs a cup of sugar) needs "
            "a density per ingredient.",
            "units-decision",
        ),
        U("Where do the densities come from?"),
        A(
            "A table of about 400 common ingredients with grams per cup, compiled from the "
            "King Arthur ingredient weight chart and USDA data. Unknown ingredients keep "
            "their original unit instead of guessing.",
            "densities",
        ),
        U("ok and temperatures"),
        A(
            "Oven temperatures convert between °C and °F and round to the nearest 5 degrees.",
            "temperatures",
        ),
        U("make it so"),
        A(write("src/lib/units/convert.ts", "unit conversion with densities")),
    ),
)

OFFLINE = Chat(
    "offline",
    "Offline mode",
    "2024-02-20",
    (
        U("People cook in kitchens with bad wifi. The app should work offline."),
        A(
            "A service worker (Workbox) caches the app shell, and saved recipes and the "
            "meal plan live in IndexedDB through Dexie. Edits made offline are queued and "
            "synced when the connection is back.",
            "offline-storage",
        ),
        U("What if I edit a recipe on the phone offline and on the laptop too?"),
        A(
            "For now: last write wins, by the server's receive time. Simple, but an offline "
            "edit can overwrite a newer one.",
            "offline-v1",
        ),
        U("fine for now"),
        A(write("src/sw.ts", "Workbox service worker") + "\n" + write("src/lib/db.ts", "Dexie")),
    ),
)

SHARING = Chat(
    "sharing",
    "Sharing recipes",
    "2024-03-04",
    (
        U("I want to send a recipe to my sister who doesn't have the app."),
        A(
            "Public share links: a recipe can be shared with a random, unguessable slug "
            "(/r/k3v9x2...), viewable without an account. The owner can revoke the link.",
            "share-links",
        ),
        U("And if she likes it she can keep it?"),
        A(
            "A 'Save a copy' button forks the recipe into her own cookbook once she signs "
            "up; the copy keeps a link to the original author."
        ),
        U("What about households? My partner and I plan meals together."),
        A(
            "Households: up to 6 members share one meal plan and one shopping list; each "
            "person keeps a private cookbook too.",
            "households",
        ),
        U("nice"),
        A(write("src/app/r/[slug]/page.tsx", "public recipe page")),
    ),
)

GROCERY = Chat(
    "grocery",
    "Shopping list",
    "2024-03-15",
    (
        U("Generate the shopping list from the week's meal plan."),
        A(
            "The list combines the ingredients of all planned meals, sums quantities of the "
            "same ingredient in the same unit family, and subtracts what is marked as in the "
            "pantry."
        ),
        U("Can it be sorted by where things are in the supermarket?"),
        A(
            "Items are grouped by aisle (produce, dairy, bakery, tins, frozen, ...) using a "
            "hand-made mapping of about 200 ingredients to aisles; unmapped items go under "
            "'Other'.",
            "aisles",
        ),
        U("Could we send the list to Instacart so people can order it?"),
        A(
            "Instacart's API requires a partnership application and only covers the US and "
            "Canada; most of our users are in the UK, so I'd not do it now.",
            "instacart",
        ),
        U("Agreed, skip Instacart."),
    ),
)

PRICING = Chat(
    "pricing",
    "Premium plan",
    "2024-03-22",
    (
        U("Time to make money. What should be free and what premium?"),
        A(
            "Free: up to 50 saved recipes, the meal plan for the current week, the shopping "
            "list. Premium: unlimited recipes, nutrition, households, planning weeks ahead."
        ),
        U("Price?"),
        A(
            "Premium costs 4.99 per month, no yearly plan yet; payments with RevenueCat on "
            "iOS/Android and Stripe on the web.",
            "pricing-v1",
        ),
        U("ok"),
    ),
)

IMPORT = Chat(
    "import",
    "Import from websites",
    "2024-04-03",
    (
        U("Let users paste a link to a recipe website and import it."),
        A(
            "Most recipe sites embed schema.org Recipe data as JSON-LD; we parse that first "
            "and fall back to a readability-style extraction of the ingredient and method "
            "lists.",
            "import-approach",
        ),
        U("It crashes on some BBC Good Food links"),
        A(
            error("TypeError: Cannot read properties of undefined (reading 'recipeIngredient')")
            + " The page wraps its Recipe inside an @graph array, so the top-level object "
            "has no recipeIngredient. The parser now searches @graph for the Recipe node.",
            "import-graph-bug",
        ),
        U("And sites with the recipe in a video only?"),
        A("Those fail gracefully with a message asking the user to type it in."),
        U("good"),
        A(write("src/lib/import/jsonld.ts", "find Recipe in @graph")),
    ),
)

ALLERGENS = Chat(
    "allergens",
    "Allergens",
    "2024-04-11",
    (
        U(
            "A user with a nut allergy asked whether recipes could warn her. I'm nervous "
            "about liability."
        ),
        A(
            "We can flag the 14 allergens that EU law lists (peanuts, tree nuts, milk, eggs, "
            "gluten, ...) from the ingredient matches, with a clear disclaimer that the "
            "flags can be wrong."
        ),
        U(
            "Dr. Okafor, the dietitian who advises us, read the draft. She wants the "
            "disclaimer on every recipe, not hidden in settings, and no 'nut-free' badges "
            "ever, only 'contains' warnings.",
            "okafor-dietitian",
        ),
        A(
            "Allergen warnings show 'Contains: ...' on every recipe that matches one of the "
            "14 allergens, with the disclaimer right under them; we never claim a recipe is "
            "free of an allergen, as Dr. Okafor asked.",
            "allergen-rules",
        ),
        U("Can people set their allergies in their profile?"),
        A("Yes: a profile setting highlights recipes containing the chosen allergens in red."),
    ),
)

WEEK = Chat(
    "week-start",
    "Meal plan calendar",
    "2024-04-18",
    (
        U("The meal plan view needs a redo, it's one long list."),
        A(
            "A week grid, seven columns, breakfast/lunch/dinner rows, drag recipes in from "
            "the cookbook. Which day should the week start on: Monday or Sunday?"
        ),
        U(
            "Sunday. Most people do their big shop at the weekend and plan from there.",
            "week-sunday",
        ),
        A(write("src/app/plan/WeekGrid.tsx", "week grid") + "\nThe grid is in."),
        U("Leftovers should be a thing too"),
        A(
            "You can now mark a meal as 'leftovers of' another one: it uses no ingredients "
            "on the shopping list."
        ),
    ),
)

JAPANESE = Chat(
    "japanese",
    "和食レシピ対応",
    "2024-04-25",
    (
        U("日本のユーザーから、大さじと小さじを使いたいという要望がありました。"),
        A(
            "大さじ（15ml）と小さじ（5ml）を計量単位として追加しました。"
            "グラム換算は材料ごとの密度表を使います。",
            "japanese-units",
        ),
        U("「適量」も対応できますか？"),
        A("「適量」と「少々」は分量なしとして扱い、栄養計算には含めません。", "tekiryo"),
    ),
)

OFFLINE_CHANGE = Chat(
    "offline-change",
    "Sync conflicts",
    "2024-05-06",
    (
        U(
            "A user lost her edits: she changed the servings on her phone offline and it "
            "got overwritten by an old version from the tablet."
        ),
        A(
            "That's the last-write-wins rule we picked. Better: merge per field. Each field "
            "of a recipe carries its own updated_at; when two versions meet, every field "
            "keeps the newer value, so edits to different fields both survive."
        ),
        U("yes do that"),
        A(
            "Sync now merges per field by each field's updated_at (replacing last write "
            "wins). When the same field changed on both devices, the newer change wins and "
            "the older value is kept in the recipe's history so it can be restored.",
            "offline-v2",
        ),
        U("great"),
        A(
            sql(
                "field timestamps",
                "ALTER TABLE recipes ADD COLUMN field_updated_at jsonb NOT NULL DEFAULT '{}';",
            )
        ),
    ),
)

PRICING_CHANGE = Chat(
    "pricing-change",
    "Pricing again",
    "2024-05-20",
    (
        U("Conversion to premium is 1.1%. People say 4.99 a month is too much for recipes."),
        A("We could lower the monthly price and add a discounted yearly plan."),
        U("3.99 a month and 29 a year. Keep old subscribers at their price."),
        A(
            "New pricing: premium is 3.99 per month or 29 per year (replacing the 4.99 "
            "monthly price). Existing subscribers keep 4.99 unless they switch.",
            "pricing-v2",
        ),
        U("add a banner for the yearly one"),
        A(write("src/components/YearlyBanner.tsx", "yearly plan banner")),
    ),
)

REQUESTS = (
    "The recipe card image is stretched on Android.",
    "Can you add a timer button next to each step?",
    "Make the ingredient list checkable while cooking.",
    "The search for recipes is slow when I type fast.",
    "Add a print view for recipes.",
    "The cookbook page should remember my sort order.",
    "Let users add notes to a recipe.",
    "The servings stepper goes below one, it shouldn't.",
    "Show the total time on the recipe card.",
    "Can you make the onboarding shorter?",
    "The app crashes when I open a recipe without a photo.",
    "Add tags like vegetarian and quick to recipes.",
    "Fix the spacing on the settings page.",
    "Users want to go back to the previous step with a swipe.",
    "Make the font bigger in cooking mode.",
    "The meal plan page needs a loading state.",
    "The nutrition panel overlaps the photo on small screens.",
    "Can the shopping list be shared by link too?",
    "Make the premium badge less shiny.",
    "The offline banner shows even when I'm online.",
    "Import button should be on the cookbook page too.",
    "The allergen icons are too small to read.",
    "Use grams by default for new users in Europe.",
    "The meal plan shows last week's meals after a reload.",
    "Add a 'copy to shopping list' button on each recipe.",
    "Rename 'household' to 'family' in the menu.",
    "The sync spinner never stops on my tablet.",
    "Make the price on the upgrade screen bigger.",
)
REPLIES = (
    "Done, I tested it with a few recipes on both phones.",
    "Fixed: the image used object-fit fill instead of cover.",
    "Added it. The state is saved per user so it survives reloads.",
    "The search now waits 250 ms after typing before it queries.",
    "The crash was a missing photo URL; recipes without one now show a placeholder.",
    "I updated the component and the page uses the new layout.",
    "Done, and I added a test for it.",
    "Changed the styles; it looks consistent with the rest of the app now.",
    "Done; the shopping list now refreshes when the plan changes.",
    "Fixed: the sync state was read before the database opened.",
    "Changed the label everywhere; the data model stays the same.",
    "Updated the upgrade screen and the premium page together.",
)
PATHS = (
    "src/app/recipe/[id]/page.tsx",
    "src/components/RecipeCard.tsx",
    "src/app/cookbook/page.tsx",
    "src/components/CookingMode.tsx",
    "src/app/settings/page.tsx",
)

CHATS = by_day(
    NUTRITION,
    UNITS,
    OFFLINE,
    SHARING,
    GROCERY,
    PRICING,
    IMPORT,
    ALLERGENS,
    WEEK,
    JAPANESE,
    OFFLINE_CHANGE,
    PRICING_CHANGE,
    *fillers("misc", 28, 21, ("2024-01-29", "2024-05-31"), REQUESTS, REPLIES, PATHS),
)

QUESTIONS = (
    Q(
        "rec-01",
        ("decision", "names"),
        "Where do we get the calorie numbers from?",
        "nutrition data source API",
        ("nutrition-source",),
    ),
    Q(
        "rec-02",
        ("fact",),
        "How long do we keep nutrition values before fetching them again?",
        "nutrition cache duration",
        ("nutrition-source",),
    ),
    Q(
        "rec-03",
        ("vocabulary", "decision"),
        "How do we deal with Americans who want cups instead of grams?",
        "cups grams conversion",
        ("units-decision",),
    ),
    Q(
        "rec-04",
        ("superseded",),
        "What happens when the same recipe is edited on two devices while offline?",
        "offline edit conflict two devices",
        ("offline-v2",),
    ),
    Q(
        "rec-05",
        ("multi_chat", "superseded"),
        "How has our approach to sync conflicts changed over time?",
        "sync conflicts approach",
        ("offline-v1", "offline-v2"),
    ),
    Q(
        "rec-06",
        ("vocabulary", "possessive"),
        "Can I give a recipe to a friend who doesn't use the app?",
        "send recipe to friend without the app",
        ("share-links",),
    ),
    Q(
        "rec-07",
        ("fact",),
        "How many people can be in one household?",
        "household members limit",
        ("households",),
    ),
    Q(
        "rec-08",
        ("vocabulary",),
        "Is the grocery list arranged by supermarket section?",
        "grocery list supermarket section",
        ("aisles",),
    ),
    Q(
        "rec-09",
        ("names", "decision"),
        "Why didn't we do the Instacart integration?",
        "Instacart integration",
        ("instacart",),
    ),
    Q(
        "rec-10",
        ("superseded", "fact"),
        "How much does premium cost?",
        "premium price",
        ("pricing-v2",),
    ),
    Q(
        "rec-11",
        ("when", "superseded"),
        "When did we lower the price of premium?",
        "premium price change",
        ("pricing-v2",),
    ),
    Q(
        "rec-12",
        ("identifier",),
        "Why did importing from BBC Good Food crash with recipeIngredient undefined?",
        "recipeIngredient undefined",
        ("import-graph-bug",),
    ),
    Q(
        "rec-13",
        ("decision",),
        "How does importing a recipe from a website work?",
        "import recipe from URL",
        ("import-approach",),
    ),
    Q(
        "rec-14",
        ("names", "possessive"),
        "What were Dr. Okafor's conditions for the allergy warnings?",
        "Okafor allergen disclaimer",
        ("allergen-rules",),
    ),
    Q(
        "rec-15",
        ("vocabulary", "decision"),
        "Do we label recipes as nut-free for people with allergies?",
        "nut free label allergy",
        ("allergen-rules",),
    ),
    Q(
        "rec-16",
        ("assistant_asks",),
        "Which day does the week start on in the meal planner?",
        "week start day meal plan",
        ("week-sunday",),
    ),
    Q(
        "rec-17",
        ("multilingual",),
        "大さじと小さじは何ミリリットル？",
        "大さじ 小さじ",
        ("japanese-units",),
    ),
    Q(
        "rec-18",
        ("multi_chat", "fact"),
        "Which features are premium-only, and what's the price now?",
        "premium features price",
        ("pricing-v1", "pricing-v2"),
    ),
    Q(
        "rec-19",
        ("when",),
        "When did we add the offline mode?",
        "offline mode service worker",
        ("offline-v1",),
    ),
    Q(
        "rec-20",
        ("possessive", "vocabulary"),
        "What's the plan for the shopping list ordering by store layout?",
        "shopping list store layout",
        ("aisles",),
    ),
    Q(
        "rec-23",
        ("multilingual",),
        "「適量」や「少々」は栄養計算でどう扱っていますか？",
        "適量 少々",
        ("tekiryo",),
    ),
    Q(
        "rec-21",
        ("when", "names"),
        "When did Dr. Okafor review the allergen warnings?",
        "Okafor review allergens",
        ("allergen-rules",),
    ),
    Q(
        "rec-22",
        ("possessive", "fact"),
        "How do we convert an ingredient's volume to weight?",
        "ingredient density volume weight",
        ("units-decision",),
    ),
    Q(
        "rec-24",
        ("names",),
        "Who is the dietitian that advises us?",
        "dietitian",
        ("okafor-dietitian",),
    ),
    Q(
        "rec-25",
        ("names", "fact"),
        "Which library keeps saved recipes on the device for offline use?",
        "offline storage IndexedDB",
        ("offline-storage",),
    ),
    Q(
        "rec-26",
        ("superseded", "fact"),
        "Do people who already subscribed have to pay the new premium price?",
        "existing subscribers price",
        ("pricing-v2",),
    ),
    Q(
        "rec-27",
        ("superseded",),
        "Is there a yearly option for premium?",
        "premium yearly plan",
        ("pricing-v2",),
    ),
    Q(
        "rec-28",
        ("names", "fact"),
        "Which payment providers take the premium subscriptions?",
        "subscription payments provider",
        ("pricing-v1",),
    ),
    Q(
        "rec-29",
        ("names", "fact"),
        "Where did the grams-per-cup table come from?",
        "ingredient density table source",
        ("densities",),
    ),
    Q(
        "rec-30",
        ("fact",),
        "How do we round oven temperatures when converting them?",
        "oven temperature conversion rounding",
        ("temperatures",),
    ),
    Q(
        "rec-31",
        ("multilingual",),
        "グラムへの換算はどうやっていますか？",
        "グラム 換算",
        ("japanese-units",),
    ),
    Q(
        "rec-32",
        ("vague",),
        "Can a family plan their dinners together?",
        "family dinners together",
        ("households",),
        distractors=("misc-23",),
    ),
    Q(
        "rec-33",
        ("vague",),
        "How is the shopping list ordered?",
        "shopping list order",
        ("aisles",),
        distractors=("misc-23",),
    ),
    Q(
        "rec-34",
        ("unanswerable",),
        "Can people give recipes a star rating?",
        "recipe star rating",
        (),
    ),
    Q(
        "rec-35",
        ("unanswerable",),
        "Does the app work with Alexa or other smart speakers?",
        "Alexa smart speaker",
        (),
    ),
    Q(
        "rec-36",
        ("unanswerable",),
        "Did we add a barcode scanner for the shopping list?",
        "barcode scanner shopping list",
        (),
        distractors=("week-start",),
    ),
)

APP = App(2, "recipes", CHATS, QUESTIONS)
