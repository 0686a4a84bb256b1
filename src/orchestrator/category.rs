//! What an inspector's observation is about, from its own words: the vocabulary both the
//! embedded agent (recording a finding) and the report (placing it on the HAP form) read, so
//! it sits below both.

use crate::orchestrator::knowledge::{normalize, temperature_celsius};

/// The category of an observation, by what it is about: the first of these that applies.
/// A measured temperature is about temperature; a missing label or date is labelling before a
/// date passed is shelf life; then pests, allergens, traceability, the cold chain, hygiene
/// (dirt on the building is hygiene too), the structure of the building, and everything else.
pub fn category(text: &str) -> &'static str {
    let normalized = normalize(text);
    let padded = format!(" {normalized} ");
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    // Prefixes for long words, whole words for short ones ("pest" is not "pesto").
    let about = |prefixes: &[&str], exact: &[&str]| {
        words
            .iter()
            .any(|w| exact.contains(w) || prefixes.iter().any(|p| w.starts_with(p)))
    };
    let phrase = |phrases: &[&str]| phrases.iter().any(|p| padded.contains(&format!(" {p} ")));
    // Raw food beside ready-to-eat food is cross-contamination, whatever it measures.
    // Raw food on the board or knife that ready food then meets is the same matter.
    let raw_beside = about(&["rauw"], &["raw"])
        && about(
            &["snijplank", "dezelfde", "zelfde"],
            &[
                "naast", "next", "boven", "above", "beside", "bij", "tussen", "plank", "board",
                "same", "mes", "knife", // "Rauwe zalm ligt direct tegen de komkommer".
                "tegen", "against", "touching", "raakt",
                // "Rauwe kipspiesen bovenop de bak met sla": raw food dripping onto ready food
                // ("under the tap" is where it thaws).
                "bovenop", "top",
            ],
        );
    if raw_beside {
        return "hygiene";
    }
    if temperature_celsius(text).is_some() {
        return "temperature";
    }
    // "zonder invriesdatum", "geen openingsdatum": a compound ending in "datum" is a date too.
    let date_word = about(
        &["datum", "houdbaarheidsdatum"],
        &["tgt", "tht", "date", "dates"],
    ) || words.iter().any(|w| w.ends_with("datum"))
        || phrase(&["te gebruiken tot", "use by", "best before"]);
    let missing = phrase(&[
        "zonder",
        "geen",
        "nergens",
        "nowhere",
        "ontbreekt",
        "ontbreken",
        "no",
        "without",
        "missing",
        "mist",
    ]);
    let passed = phrase(&[
        "over",
        "verlopen",
        "past",
        "expired",
        "overschreden",
        "eergisteren",
        "gisteren",
        "geleden",
        "ago",
        "yesterday",
        "vorige",
        "afgelopen",
        "last",
        "verstreken",
        "vervallen",
    ]);
    // "alleen een Chinees etiket", "only a Polish label": a label not in the buyer's language.
    let foreign = phrase(&["alleen", "uitsluitend", "only"])
        || about(
            &[
                "chinee",
                "engels",
                "pools",
                "poolse",
                "turks",
                "arabisch",
                "buitenlands",
                "foreign",
                "chinese",
                "polish",
                "turkish",
                "arabic",
            ],
            &[],
        );
    // "THT 24 dagen, geen houdbaarheidsonderzoek in de map": a study of the shelf life
    // missing is a document of the business (other), not the label's date.
    let study = about(&["houdbaarheidsonderzoek", "challengetest"], &[])
        || phrase(&["shelf life study", "shelf life studies"]);
    if study && missing {
        return "other";
    }
    // "Bakje gesneden avocado van gisteren zonder datum": no date on it is labelling, whenever
    // it was made.
    let no_date = phrase(&[
        "zonder datum",
        "geen datum",
        "without a date",
        "no date",
        "undated",
    ]);
    // "Thawed pangasius in the display, the sign doesn't say it was frozen": thawed food sold
    // without saying so.
    let unsaid = missing
        || phrase(&[
            "doesn t say",
            "does not say",
            "nothing says",
            "not say",
            "zegt niet",
            "staat niet",
            "niet vermeld",
            "not stated",
            // "op het bordje staat alleen verse zalm": the sign says fresh, nothing more.
            "staat alleen",
            "alleen vers",
            "alleen verse",
            "only fresh",
            "says fresh",
            "as fresh",
            "als vers",
        ]);
    // "No batch number on the label": the label is where the lot is missing, tracing it back
    // is the matter.
    if about(
        &["lotnummer", "partijnummer", "batchnummer", "batchcode"],
        &[],
    ) || phrase(&[
        "batch number",
        "batch numbers",
        "batch code",
        "lot number",
        "lot code",
    ]) {
        return "traceability";
    }
    if (about(&["etiket", "label", "sticker"], &[]) && (missing || foreign))
        || no_date
        || (about(&["ontdooi", "thawed", "defrosted"], &[])
            && unsaid
            && about(&["bord", "sign", "label", "etiket", "display", "vitrine", "frozen", "bevroren", "ingevroren"], &[]))
        || (date_word && missing && !passed)
        || phrase(&[
            "niet in het nederlands",
            "not in dutch",
            "nederlands etiket",
            "dutch label",
        ])
        || (phrase(&["ontdooid"]) && missing)
        // "Pepperoni tub opened last Friday, nothing on it to say when": an opened product
        // that does not say when it was opened.
        || (about(&["geopend", "opened", "aangebroken"], &[])
            && phrase(&["nothing", "niets", "niks"]))
    {
        return "labelling";
    }
    // "Ongediertebestrijdingscontract is verlopen": a contract or certificate runs out, food
    // passes its date.
    // Inside compounds too: "ongediertebestrijdingscontract".
    let agreement = words.iter().any(|w| {
        [
            "contract",
            "certifica",
            "abonnement",
            "overeenkomst",
            "vergunning",
            "licen",
        ]
        .iter()
        .any(|a| w.contains(a))
    });
    if (date_word && passed)
        || (about(&["verlopen", "expired"], &[]) && !agreement)
        || phrase(&["over de datum", "over datum", "out of date"])
    {
        return "shelf-life";
    }
    // "Door propped open, no insect screen": the screen that keeps insects out is a part of
    // the building, missing or broken; insects seen besides it ("flies in the bakehouse, they
    // come in through a window without a fly screen") are pests, below.
    let screen = phrase(&[
        "insect screen",
        "insect screens",
        "fly screen",
        "fly screens",
        "insect mesh",
    ]) || about(&["insectenhor", "vliegenhor", "horren"], &["hor"]);
    // A pest named, not the screen named after one ("insect screen").
    let pest_at = |i: usize| {
        let names_screen = words
            .get(i + 1)
            .is_some_and(|next| ["screen", "screens", "mesh"].contains(next));
        !names_screen
            && (PEST_WORDS.contains(&words[i])
                || PEST_STEMS.iter().any(|p| words[i].starts_with(p)))
    };
    let pests = (0..words.len()).any(pest_at);
    if screen && !pests {
        return "building";
    }
    if pests {
        return "pests";
    }
    if about(
        &[
            "allerg",
            "pinda",
            "peanut",
            "gluten",
            "lactose",
            "sesam",
            "selderij",
            "schaaldier",
        ],
        &[
            "noten",
            "nuts",
            "nut",
            "noot",
            "lupine",
            "mosterd",
            "mustard",
            "celery",
            "shellfish",
        ],
    ) {
        return "allergens";
    }
    if about(
        &[
            "pakbon",
            "factu",
            "invoice",
            "leverbon",
            "afleverbon",
            "lotnummer",
            "partijnummer",
            "herkomst",
            "traceer",
            "traceab",
            "recall",
            "terugroep",
        ],
        &["batch", "origin", "lot"],
    ) || (about(&["afnemer"], &[])
        || phrase(&[
            "waaraan",
            "supplied to",
            "delivered to",
            "customers supplied",
        ]))
        && about(
            &[
                "geleverd",
                "levert",
                "supplied",
                "delivered",
                "afnemer",
                "supplies",
            ],
            &[],
        )
        || phrase(&[
            "delivery note",
            "delivery notes",
            "delivery records",
            "delivery slip",
            "delivery slips",
        ])
    {
        return "traceability";
    }
    // "Schimmel op het plafond van de koelcel", "the cold store door seal is torn": a defect of
    // the structure is about the building, wherever the structure is.
    // Lighting is a fixed facility too ("de tl-buis is kapot").
    let structure = about(
        &[
            "plafond",
            "vloer",
            "muur",
            "muren",
            "wand",
            "tegel",
            "ceiling",
            "verlichting",
            "lamp",
        ],
        &[
            "floor", "floors", "wall", "walls", "tile", "tiles", "tl", "light", "lights",
            "lighting", "bulb",
        ],
    );
    let defect = about(
        &[
            "schimmel",
            "beschimmel",
            "condens",
            "kapot",
            "gescheurd",
            "scheur",
            "lek",
            "mould",
            "mold",
            "condensation",
            "broken",
            "torn",
            "crack",
            "damaged",
            "beschadig",
            "loszittend",
        ],
        // "de vloer heeft gaten waar water in blijft staan".
        &[
            "los", "losse", "loose", "gat", "gaten", "hole", "holes", "kuilen",
        ],
    );
    if structure && defect {
        return "building";
    }
    // "Walk-in freezer door seal is torn", "de koelceldeur sluit niet, het rubber hangt los":
    // a door or its seal that no longer closes is the building's upkeep, whatever it keeps
    // cold (mould in a seal is dirt to clean, below).
    let door = about(
        &["deur", "afdichting", "rubber"],
        &["door", "doors", "seal", "seals", "gasket", "strip"],
    );
    let broken = about(
        &["kapot", "gescheurd", "scheur", "beschadig", "loszittend"],
        &[
            "los", "losse", "loose", "hanging", "broken", "torn", "damaged", "cracked",
        ],
    ) || phrase(&[
        "doesn t close",
        "does not close",
        "won t close",
        "sluit niet",
        "gaat niet dicht",
        "propped open",
        "opengezet",
        "open gezet",
    ]);
    if door && broken {
        return "building";
    }
    // "The juice dispenser spout is sticky with mould around the tap": mould on a thing that
    // is not the structure, nor a room, is dirt to clean.
    let room = about(
        &["ruimte", "kelder", "hoek", "keuken", "magazijn", "opslag"],
        &["room", "corner", "cellar", "kitchen", "store", "storeroom"],
    );
    if about(&["schimmel", "beschimmel", "mould", "mold"], &[]) && !structure && !room {
        return "hygiene";
    }
    // "Carcasses with gut contents smeared on them went straight to the chiller", "in de
    // uitsnijderij staat de messensterilisator uit", "scoops in a tub of standing water at
    // the ice-cream display": dirt, contamination or a cleaning step not done is the matter;
    // a cold store in the sentence is only where it is.
    let soiled = words.iter().any(|w| {
        [
            "sterilis",
            "steriliz",
            "darminhoud",
            "maaginhoud",
            "aangekoekt",
            "roest",
        ]
        .iter()
        .any(|p| w.contains(p))
            || ["crust", "korst", "rust", "rusty", "scraps", "etensresten"].contains(w)
    }) || phrase(&["gut contents", "food scraps", "dried rice"])
        // "dirty fridge shelves", "burnt crumbs all over the buffet table": dirt by its name.
        || about(
            &["vuil", "viez", "smerig", "kruimel", "crumb", "filthy", "grime"],
            &["vies", "dirty"],
        )
        // "vetfilters druipen": grease dripping from what should hold it.
        || (about(&["druip", "drip"], &[]) && about(&["vet", "grease", "olie", "oil"], &[]))
        // Utensils kept in standing water (a drain full of it is the building's; food
        // thawing in it is temperature).
        || (phrase(&["stilstaand water", "standing water"])
            && about(
                &["schep", "lepel", "spatel", "pollepel", "tang"],
                &["scoop", "scoops", "ladle", "ladles", "spoon", "spoons", "tongs", "knives", "messen"],
            ))
        || (about(&["hetzelfde", "zelfde"], &["same"])
        && about(
            &["mes", "snijmes", "snijplank", "plank", "tang"],
            &["knife", "board", "tongs", "slicer"],
        ));
    let cold_control = words.iter().any(|w| {
        [
            "ongekoel", "unchill", "uncool", "ontdooi", "thaw", "defrost",
        ]
        .iter()
        .any(|p| w.starts_with(p))
    }) || phrase(&[
        "niet gekoeld",
        "not chilled",
        "not refrigerated",
        "buiten de koeling",
        "out of the fridge",
        "lauw",
        "lukewarm",
    ]);
    if soiled && !cold_control {
        return "hygiene";
    }
    if about(
        &[
            "koel",
            "cool",
            "vries",
            "diepvries",
            // "vriezer", "vriezers": the noun is spelled with a z.
            "vriez",
            "bevroren",
            "ontdooi",
            "thaw",
            "defrost",
            "frozen",
            "freez",
            "fridge",
            "chill",
            "warmhoud",
            "bain",
            "buffet",
            "afkoel",
            "terugkoel",
            "temperatuur",
            "temperature",
            "regenere",
            "kerntemperatuur",
            // "Er is nergens een thermometer in de truck": no way to measure the cold.
            "thermomet",
            "opwarm",
            "reheat",
            "pasteuris",
            // "reefer truck": a refrigerated one.
            "reefer",
        ],
        // "no delivery temps logged", "no working temp logger": the spoken short form.
        &["temp", "temps", "logger", "dataloggers", "datalogger"],
    ) || words.iter().any(|w| {
        // "ongekoeld", "unchilled", "uncooled": the missing cold is in the word.
        ["ongekoel", "unchill", "uncool", "ungekoel"]
            .iter()
            .any(|p| w.starts_with(p))
            // "pasteurisatietemperatuur", "kooktemperatuur": a compound ending in the word.
            || w.ends_with("temperatuur")
            || w.ends_with("temperaturen")
    }) || phrase(&[
        // Food left out of the cold: "the platter has been out since 6:30".
        "been out",
        "out since",
        "left out",
        "sitting out",
        "standing out",
        "staat buiten",
        "staan buiten",
        "room temperature",
        "out of the cold",
        "buiten de koeling",
        "no cooling",
        "not chilled",
        "not refrigerated",
        "niet gekoeld",
        "kamertemperatuur",
        "lauwwarm",
        "lukewarm",
        // "The salmon platter has no start time written anywhere": the time food left the
        // cold is its time control.
        "start time",
        "starttijd",
        "begintijd",
        // "Pan ragù van vanochtend staat nog lauw op het fornuis": neither hot nor cold.
        "lauw",
        "tepid",
        // "de verse haring ligt niet op ijs": fresh fish keeps its cold on ice.
        "niet op ijs",
        "not on ice",
        "geen ijs",
        "no ice",
    ]) {
        return "temperature";
    }
    let no_basin = phrase(&[
        "geen handenwasbak",
        "geen wastafel",
        "no hand basin",
        "no washbasin",
        "geen hand wash sink",
        "no hand wash sink",
        "geen handwasgelegenheid",
    ]) || (about(&["handenwasbak", "wastafel", "fonteintje"], &[])
        && phrase(&["ontbreekt", "ontbreken", "is missing"])
        // "Bij het fonteintje ontbreekt zeep": what is missing at the basin is hand hygiene.
        && !about(
            &["zeep", "soap", "handdoek", "towel", "papier", "paper", "doekje"],
            &[],
        ));
    if no_basin {
        return "building";
    }
    // "Op de deegmachine zit nog oud deeg", "old sauce stains in the bags": leftovers on
    // equipment are a cleaning matter, whatever the equipment is called.
    let equipment = words.iter().any(|w| {
        [
            "machine",
            "apparat",
            "mixer",
            "slicer",
            "snijplank",
            "plank",
            "bags",
            "tassen",
            "bakken",
            "messen",
            "knives",
            "utensil",
            "gerei",
        ]
        .iter()
        .any(|e| w.contains(e))
    });
    // "vastgekoekte vleesresten", "deegresten": leftovers, whatever stuck them there.
    let leftovers = words
        .iter()
        .any(|w| w.ends_with("resten") || w.ends_with("residu") || w.ends_with("koekte"));
    // "De tosti-ijzers zitten vol kaasresten": leftovers are a cleaning matter on whatever
    // they stick to.
    if leftovers
        || equipment
            && about(
                &["vlek", "stain", "beschimmel", "schimmel", "mould", "mold"],
                &["oud", "oude", "old", "resten", "residue"],
            )
    {
        return "hygiene";
    }
    if about(
        &[
            "vuil",
            "vies",
            // "Spatels in een bakje troebel water", "sticky", "plakkerig": dirt by its look.
            "troebel",
            "murky",
            // "vieze theedoek": the inflected form.
            "viez",
            // "a tub of grey water", "grijs water": water gone dirty.
            "grey",
            "grijs",
            "grijze",
            // Cleaning gear among the food: "stofzuiger tussen de meelzakken".
            "stofzuig",
            "vacuum",
            "sticky",
            "plakkerig",
            "kleverig",
            // Staff eating beside open food: their own hygiene.
            "eating",
            "smerig",
            "aangekoekt",
            "vetlaag",
            "vetrand",
            "aanslag",
            // "A slimy biofilm on the inside": a film of microbes is dirt to clean.
            "biofilm",
            "slijm",
            "slimy",
            "slime",
            "dirty",
            "grease",
            "greasy",
            "grime",
            "filthy",
            "stained",
            "crusted",
            // "Rice cooker caked with dried starch", "green algae film on the trays": a layer
            // left on a surface.
            "caked",
            "encrusted",
            "algae",
            "algen",
            // "knife block full of crumbs", "a layer of scum on the brine", "een zwarte
            // teerlaag in de rookkast", "wokpannen vettig": what is left to clean off.
            "kruimel",
            "crumb",
            "scum",
            "schuimlaag",
            "teerlaag",
            "roet",
            "soot",
            "vettig",
            // Gut contents on a carcass: contamination at slaughter.
            "darminhoud",
            "maaginhoud",
            // "kaasschaaf tussen het wisselgeld": money touches food.
            "wisselgeld",
            "onafgedekt",
            "uncovered",
            "schoon",
            "reinig",
            "gereinig",
            "clean",
            "snijplank",
            "kleding",
            "schort",
            "sieraad",
            "horloge",
            "watch",
            "jewel",
            "armband",
            "wond",
            "pleister",
            "ziek",
            "koorts",
            "diarree",
            "buikgriep",
            "griep",
            // Faeces on food or carcasses: contamination, not pests.
            "mest",
            "fecal",
            "fecale",
            "feces",
            "faeces",
            "overgeven",
            "overgegeven",
            "overgaf",
            "braken",
            "braakt",
            "sick",
            "fever",
            "vomit",
            "diarrh",
            "zeep",
            "soap",
            "handdoek",
            "towel",
            // "geen papieren doekjes bij de wasbak": nothing to dry hands with.
            "doekjes",
            "handen",
            "kruisbesmet",
            "cross",
            "afval",
            "waste",
            "vuilnis",
            "ijsschep",
            "scoop",
            "haarnet",
            "hairnet",
            "handschoen",
            "glove",
            "rookt",
            // "smoking", "smokes", not "smoked salmon".
            "smoking",
            "smokes",
            "asbak",
            // Waste containers by their own names.
            "pedaalemmer",
            "prullenbak",
            "vuilnisemmer",
            "afvalemmer",
            "kliko",
            "peuk",
            "afwas",
            "ring",
            "sterili",
            "gesteril",
            "gedesinfect",
            "desinfect",
            "disinfect",
            "ontsmet",
            "snijwond",
            "wondje",
            "bleed",
            "bloed",
            "plaster",
            "handwas",
        ],
        &[
            "film", "ill", "bin", "bins", "hands", "vet", "vette", "wound", "smoke", "emmer",
            "eat", "eats", "tar", "gut", "guts", "money", "cash", "coins",
        ],
    ) || phrase(&[
        // A cut on someone's hand is a wound; "cut iceberg lettuce" is a product.
        "a cut",
        "an open cut",
        "open cut",
        "deep cut",
        "cut on",
        "cuts on",
        "cuts to",
    ]) {
        return "hygiene";
    }
    if about(
        &[
            "vloer",
            "muur",
            "muren",
            "wand",
            "plafond",
            "tegel",
            "deur",
            "achterdeur",
            "kier",
            "raam",
            "ramen",
            "toilet",
            "ventilat",
            "afzuig",
            "afvoer",
            "putje",
            "verlicht",
            "schimmel",
            "condens",
            "lekkage",
            "lekt",
            "ceiling",
            "extractor",
            "mould",
            "mold",
            "condensation",
            "stucwerk",
            "plint",
        ],
        &[
            "hor", "horren", "lamp", "light", "lights", "lighting", "bulb", "floor", "floors",
            "wall", "walls", "tile", "tiles", "gap", "window", "windows", "screen", "screens",
            "vent", "vents", "drain", "drains", "leak", "leaks",
        ],
    ) || phrase(&[
        // "door" alone is also Dutch ("tussen de bedrijven door"): the English door with
        // its article or what it is.
        "the door",
        "a door",
        "the doors",
        "back door",
        "front door",
        "fire door",
        "door seal",
        "door frame",
        "door is",
        "doors are",
    ]) {
        return "building";
    }
    "other"
}

/// Pests by the start of their word (compounds: "muizenkeutels", "fruitvliegjes").
const PEST_STEMS: &[&str] = &[
    "muis",
    "muiz",
    "keutel",
    "knaag",
    "gnaw",
    "kakkerla",
    // Compounds: "fruitvliegjes boven het afvoerputje".
    "fruitvlieg",
    "ongedierte",
    "plaagdier",
    "insect",
    "vlieg",
    "rodent",
    "dropping",
    "cockroach",
    "vermin",
    "uitwerpsel",
    // "a hole chewed through the corner of the sack": what gnawed it.
    "aangeknaagd",
    "doorgeknaagd",
    "aangevreten",
    "chewed",
];

/// Pests by their whole word ("rat", not "ratatouille"; "pest", not "pesto").
const PEST_WORDS: &[&str] = &[
    "rat",
    "ratten",
    "mot",
    "motten",
    "mier",
    "mieren",
    "kat",
    "katten",
    "hond",
    "honden",
    "mice",
    "mouse",
    "rats",
    "pest",
    "pests",
    "fly",
    "flies",
    "cat",
    "cats",
    "dog",
    "dogs",
    "pet",
    "pets",
    "huisdier",
    "huisdieren",
];
