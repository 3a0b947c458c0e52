"""Hostelhop: the booking and house pages of a small hostel chain, built with an AI
assistant by its owner Ruth (in English) and the managers of its houses, each in their
own language: Jonas in Berlin (German), Camille in Lyon (French), Carmen in Seville
(Spanish), Giulia in Bologna (Italian) and Daan in Amsterdam (Dutch).

Written for the `inflection` category: each question asks for a word in another
inflection than the message that answers it writes it (`Rechnung` for `Rechnungen`),
in the language of that message; English questions of the same kind are the control."""

from __future__ import annotations

from tests.evaluation.corpus import A, App, Chat, Q, U, by_day, fillers, write

BERLIN_GROUPS = Chat(
    "berlin-groups",
    "Berlin: Gruppen und Frühstück",
    "2024-03-04",
    (
        U(
            "Hallo, hier ist Jonas aus dem Berliner Haus. Die Lehrer der Schulklassen wollen "
            "alles auf einmal bezahlen, nicht jeder Schüler einzeln."
        ),
        A(
            "Für Gruppen erstellen wir jetzt Sammelrechnungen: die Rechnungen gehen am "
            "Monatsende als PDF an die Schule, zahlbar innerhalb von 14 Tagen.\n"
            + write("src/server/billing/groups.ts", "Sammelrechnungen für Gruppen"),
            "de-rechnungen",
        ),
        U("Super. Und das Frühstück? Die Brötchen vom Supermarkt schmecken nach nichts."),
        A(
            "Ab Montag liefern zwei Bäckereien aus dem Kiez jeden Morgen um 6:30 frische "
            "Brötchen; die Bestellung geht am Vorabend automatisch raus.",
            "de-baeckereien",
        ),
        U("Danke!"),
    ),
)

BERLIN_DORMS = Chat(
    "berlin-dorms",
    "Berlin: Schlafsäle",
    "2024-03-18",
    (
        U("Gäste beschweren sich über das Licht im Schlafsaal, wenn andere spät kommen."),
        A(
            "Alle Betten in den Schlafsälen haben jetzt Vorhänge und eigene Steckdosen mit "
            "USB; das steht auch auf der Hausseite.\n"
            + write("src/app/houses/berlin/rooms.tsx", "Schlafsäle beschrieben"),
            "de-betten",
        ),
        U("Und wir verlieren ständig Schlüsselkarten."),
        A(
            "Mit den neuen Schlüsseln aus Metall statt Karten nehmen wir 10 Euro Pfand pro "
            "Gast, zurück beim Auschecken.",
            "de-schluesseln",
        ),
        U("Gut."),
    ),
)

BERLIN_REVIEWS = Chat(
    "berlin-reviews",
    "Berlin: Bewertungen",
    "2024-04-08",
    (
        U("Unsere Google-Bewertungen sind im März schlechter geworden. Woran liegt das?"),
        A(
            "Die meisten Beschwerden betrafen den Lärm aus der Bar im Erdgeschoss; die Bar "
            "schließt jetzt um 23 Uhr.",
            "de-beschwerden",
        ),
        U("Und das Putzen? Da gab es auch Kommentare."),
        A(
            "Die Reinigungen der Zimmer laufen jetzt täglich von 10 bis 14 Uhr, die Bäder "
            "zweimal am Tag.\n" + write("src/server/houses/housekeeping.ts", "Putzplan"),
            "de-reinigungen",
        ),
    ),
)

LYON_HOUSE = Chat(
    "lyon-house",
    "Lyon : l'auberge",
    "2024-03-11",
    (
        U(
            "Bonjour, c'est Camille à Lyon. Des clients demandent souvent s'ils peuvent venir "
            "avec leur chien."
        ),
        A(
            "Les animaux ne sont pas admis à l'auberge, à l'exception des chiens guides ; "
            "c'est écrit sur la page de la maison.\n"
            + write("src/app/houses/lyon/rules.tsx", "règles de la maison"),
            "fr-animaux",
        ),
        U("Et pour les valises des gens qui partent tard ?"),
        A(
            "Les casiers sont installés depuis lundi dans les locaux du rez-de-chaussée, avec "
            "un cadenas à code.",
            "fr-locaux",
        ),
        U("On a aussi déménagé l'accueil, tu peux mettre la page à jour ?"),
        A(
            "C'est fait : les bureaux sont maintenant au premier étage, l'accueil reste "
            "ouvert jour et nuit.",
            "fr-bureaux",
        ),
    ),
)

LYON_GROUPS = Chat(
    "lyon-groups",
    "Lyon : groupes",
    "2024-04-15",
    (
        U("Les groupes scolaires réservent par e-mail, c'est le chaos."),
        A(
            "Les réservations de groupe passent par un formulaire dédié, avec un acompte de "
            "30 % à la confirmation.\n"
            + write("src/app/houses/lyon/groups.tsx", "formulaire de groupe"),
            "fr-reservations",
        ),
        U("Et si un groupe annule ?"),
        A(
            "Les annulations sont gratuites jusqu'à 7 jours avant l'arrivée ; ensuite "
            "l'acompte est perdu.",
            "fr-annulations",
        ),
    ),
)

SEVILLE_TRIPS = Chat(
    "seville-trips",
    "Sevilla: excursiones",
    "2024-03-25",
    (
        U("Hola, soy Carmen, de Sevilla. Los huéspedes preguntan mucho por Córdoba."),
        A(
            "Las excursiones a Córdoba salen los martes y jueves a las 8:00 desde la "
            "recepción, 35 euros con guía.\n"
            + write("src/app/houses/seville/trips.tsx", "excursiones"),
            "es-excursiones",
        ),
        U("¿Y para llegar desde el aeropuerto?"),
        A(
            "Los autobuses del aeropuerto paran en la Puerta de Jerez cada 20 minutos; el "
            "billete cuesta 4 euros.",
            "es-autobuses",
        ),
        U("Otra cosa: la empresa de limpieza nos sube la tarifa."),
        A(
            "Pagamos a la empresa Brillo 1.200 euros al mes por la limpieza; el contrato "
            "nuevo empieza en julio.",
            "es-pagamos",
        ),
    ),
)

SEVILLE_ROOMS = Chat(
    "seville-rooms",
    "Sevilla: habitaciones",
    "2024-05-06",
    (
        U("Con el calor, ¿qué ponemos en la página sobre el aire?"),
        A(
            "Las habitaciones privadas tienen aire acondicionado desde junio; los "
            "dormitorios compartidos, ventiladores de techo.",
            "es-habitaciones",
        ),
        U("¿Y los precios de verano?"),
        A(
            "En los meses de verano la tarifa sube un 20 %, de junio a septiembre.\n"
            + write("src/server/pricing/seasons.ts", "temporada alta"),
            "es-meses",
        ),
    ),
)

BOLOGNA = Chat(
    "bologna",
    "Bologna: servizi",
    "2024-04-01",
    (
        U("Ciao, sono Giulia di Bologna. Dobbiamo aggiornare la pagina della casa."),
        A(
            "Certo. Ho aggiunto gli orari: le colazioni sono servite dalle 7:30 alle 10:30 in "
            "terrazza.",
            "it-colazioni",
        ),
        U("E la biancheria? Gli ospiti chiedono sempre."),
        A(
            "Le lenzuola si cambiano ogni tre notti, o su richiesta alla reception.",
            "it-lenzuola",
        ),
        U("Abbiamo anche comprato delle bici."),
        A(
            "Abbiamo dieci biciclette a noleggio, 8 euro al giorno, con lucchetto.\n"
            + write("src/app/houses/bologna/services.tsx", "servizi"),
            "it-biciclette",
        ),
        U("E per le scuole?"),
        A(
            "Le prenotazioni di gruppo sopra le 10 persone richiedono un acconto del 20 %.",
            "it-prenotazioni",
        ),
    ),
)

AMSTERDAM = Chat(
    "amsterdam",
    "Amsterdam: huis",
    "2024-04-22",
    (
        U("Hoi, Daan hier uit Amsterdam. Booking.com rekent ons meer dan vroeger."),
        A(
            "Boekingen via Booking.com kosten ons sinds mei 15 % commissie; directe "
            "boekingen op onze eigen site niets.",
            "nl-boekingen",
        ),
        U("En wat zetten we op de pagina over handdoeken?"),
        A(
            "Handdoeken huren kost 3 euro per verblijf, lakens zijn inbegrepen.",
            "nl-handdoeken",
        ),
        U("En het eten 's ochtends?"),
        A(
            "Gasten kunnen vanaf 7 uur ontbijten in de kelder, tot half elf.\n"
            + write("src/app/houses/amsterdam/page.tsx", "huispagina"),
            "nl-ontbijten",
        ),
    ),
)

OWNER = Chat(
    "owner",
    "Company guests",
    "2024-03-01",
    (
        U(
            "Ruth here. Companies that send staff to us want proper paperwork with their "
            "VAT number on it."
        ),
        A(
            "Invoices for corporate guests now carry the company's VAT number and go out the "
            "day after checkout.\n" + write("src/server/billing/corporate.ts", "corporate"),
            "en-invoices",
        ),
        U("And can we push people to book with us rather than the platforms?"),
        A(
            "Direct bookings on our own site now get 10% off and a free breakfast, which "
            "still costs less than the platforms' commission.",
            "en-bookings",
        ),
    ),
)

OWNER_HOUSEKEEPING = Chat(
    "owner-housekeeping",
    "House rules page",
    "2024-05-13",
    (
        U("One page for all houses: what's included and when rooms are done."),
        A(
            "Towels are free in private rooms and £2 in dorms; sheets are always included.",
            "en-towels",
        ),
        U("And the rooms?"),
        A(
            "Rooms are cleaned between 10 and 2, and dorm bathrooms twice a day.\n"
            + write("src/app/houses/rules.tsx", "shared house rules"),
            "en-cleaned",
        ),
    ),
)

REQUESTS = (
    "The booking calendar is hard to use on phones.",
    "Can the house pages use the same header?",
    "The photos of the Lyon house load slowly.",
    "Add the phone number of each house to the footer.",
    "The language switcher overlaps the logo.",
    "Prices should show the currency symbol.",
    "The map on the Berlin page points to the wrong street.",
    "Make the book button bigger.",
    "There's a typo on the Amsterdam page.",
    "Please tidy up the admin menu.",
)
REPLIES = (
    "Done, checked on a phone.",
    "Fixed the layout on small screens.",
    "Updated; the photos are resized now.",
    "Changed it. Let me know if anything looks off.",
    "Fixed the coordinates.",
)
PATHS = (
    "src/app/page.tsx",
    "src/app/book/page.tsx",
    "src/components/Header.tsx",
    "src/components/Footer.tsx",
    "src/styles/globals.css",
)

CHATS = by_day(
    BERLIN_GROUPS,
    BERLIN_DORMS,
    BERLIN_REVIEWS,
    LYON_HOUSE,
    LYON_GROUPS,
    SEVILLE_TRIPS,
    SEVILLE_ROOMS,
    BOLOGNA,
    AMSTERDAM,
    OWNER,
    OWNER_HOUSEKEEPING,
    *fillers("misc", 16, 121, ("2024-02-20", "2024-05-31"), REQUESTS, REPLIES, PATHS),
)


def inflection(
    qid: str, language: str, full: str, keywords: str, label: str, asked: str, written: str
) -> Q:
    return Q(
        qid,
        ("inflection",),
        full,
        keywords,
        (label,),
        language=language,
        inflection=(asked, written),
    )


QUESTIONS = (
    inflection(
        "hst-01",
        "german",
        "Wann schicken wir die Rechnung an eine Schulklasse?",
        "Rechnung Schulklasse",
        "de-rechnungen",
        "Rechnung",
        "Rechnungen",
    ),
    inflection(
        "hst-02",
        "german",
        "Von welcher Bäckerei kommt unser Frühstück?",
        "Bäckerei Frühstück",
        "de-baeckereien",
        "Bäckerei",
        "Bäckereien",
    ),
    inflection(
        "hst-03",
        "german",
        "Hat jedes Bett im Schlafsaal einen Vorhang?",
        "Bett Vorhang",
        "de-betten",
        "Bett",
        "Betten",
    ),
    inflection(
        "hst-04",
        "german",
        "Wie hoch ist die Kaution für einen Schlüssel?",
        "Schlüssel Kaution",
        "de-schluesseln",
        "Schlüssel",
        "Schlüsseln",
    ),
    inflection(
        "hst-05",
        "german",
        "Worum ging es bei der häufigsten Beschwerde?",
        "häufigste Beschwerde",
        "de-beschwerden",
        "Beschwerde",
        "Beschwerden",
    ),
    inflection(
        "hst-06",
        "german",
        "Bis wann ist die Reinigung fertig?",
        "Reinigung Uhrzeit",
        "de-reinigungen",
        "Reinigung",
        "Reinigungen",
    ),
    inflection(
        "hst-07",
        "french",
        "Je peux venir avec mon animal de compagnie ?",
        "animal de compagnie",
        "fr-animaux",
        "animal",
        "animaux",
    ),
    inflection(
        "hst-08",
        "french",
        "Dans quel local peut-on ranger une valise ?",
        "local valise",
        "fr-locaux",
        "local",
        "locaux",
    ),
    inflection(
        "hst-09",
        "french",
        "Où se trouve le bureau à présent ?",
        "bureau nouvel emplacement",
        "fr-bureaux",
        "bureau",
        "bureaux",
    ),
    inflection(
        "hst-10",
        "french",
        "Comment faire une réservation pour une classe ?",
        "réservation classe",
        "fr-reservations",
        "réservation",
        "réservations",
    ),
    inflection(
        "hst-11",
        "french",
        "Une annulation la veille, c'est remboursé ?",
        "annulation remboursement",
        "fr-annulations",
        "annulation",
        "annulations",
    ),
    inflection(
        "hst-12",
        "spanish",
        "¿Qué día sale la excursión a Córdoba?",
        "excursión Córdoba",
        "es-excursiones",
        "excursión",
        "excursiones",
    ),
    inflection(
        "hst-13",
        "spanish",
        "¿Dónde se coge el autobús del aeropuerto?",
        "autobús aeropuerto",
        "es-autobuses",
        "autobús",
        "autobuses",
    ),
    inflection(
        "hst-14",
        "spanish",
        "¿Cuánto hay que pagar por la limpieza?",
        "pagar limpieza",
        "es-pagamos",
        "pagar",
        "pagamos",
    ),
    inflection(
        "hst-15",
        "spanish",
        "¿Tiene aire acondicionado una habitación privada?",
        "habitación aire acondicionado",
        "es-habitaciones",
        "habitación",
        "habitaciones",
    ),
    inflection(
        "hst-16",
        "spanish",
        "¿En qué mes es más cara la noche?",
        "mes más caro",
        "es-meses",
        "mes",
        "meses",
    ),
    inflection(
        "hst-17",
        "italian",
        "A che ora è la colazione?",
        "colazione orario",
        "it-colazioni",
        "colazione",
        "colazioni",
    ),
    inflection(
        "hst-18",
        "italian",
        "Ogni quanto viene cambiato il lenzuolo?",
        "lenzuolo cambio",
        "it-lenzuola",
        "lenzuolo",
        "lenzuola",
    ),
    inflection(
        "hst-19",
        "italian",
        "Posso prendere una bicicletta in affitto?",
        "bicicletta affitto",
        "it-biciclette",
        "bicicletta",
        "biciclette",
    ),
    inflection(
        "hst-20",
        "italian",
        "Serve un anticipo per una prenotazione di una scuola?",
        "prenotazione scuola anticipo",
        "it-prenotazioni",
        "prenotazione",
        "prenotazioni",
    ),
    inflection(
        "hst-21",
        "dutch",
        "Hoeveel commissie kost een boeking via een platform?",
        "boeking commissie",
        "nl-boekingen",
        "boeking",
        "boekingen",
    ),
    inflection(
        "hst-22",
        "dutch",
        "Moet ik betalen voor een handdoek?",
        "handdoek betalen",
        "nl-handdoeken",
        "handdoek",
        "handdoeken",
    ),
    inflection(
        "hst-23",
        "dutch",
        "Waar en wanneer is het ontbijt?",
        "ontbijt tijd",
        "nl-ontbijten",
        "ontbijt",
        "ontbijten",
    ),
    inflection(
        "hst-24",
        "english",
        "When does a company get its invoice?",
        "company invoice",
        "en-invoices",
        "invoice",
        "invoices",
    ),
    inflection(
        "hst-25",
        "english",
        "What discount does a direct booking get?",
        "direct booking discount",
        "en-bookings",
        "booking",
        "bookings",
    ),
    inflection(
        "hst-26",
        "english",
        "Do guests pay for a towel?",
        "towel price",
        "en-towels",
        "towel",
        "towels",
    ),
    inflection(
        "hst-27",
        "english",
        "When is the cleaning done?",
        "cleaning hours",
        "en-cleaned",
        "cleaning",
        "cleaned",
    ),
)

APP = App(12, "hostels", CHATS, QUESTIONS)
