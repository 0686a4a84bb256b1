//! The planner's routing: intents and language of inspector messages.
#![cfg(feature = "ssr")]

use agora_hai::orchestrator::inspection::InspectionState;
use agora_hai::orchestrator::knowledge::Knowledge;
use agora_hai::orchestrator::llm::planner::{
    Intent, Lang, detect_language, suggested_severity, understand,
};

/// A first turn, without the register.
fn classify(text: &str) -> Intent {
    understand(text, &InspectionState::default(), None)
}

/// A first turn, with or without the register.
fn route(text: &str, knowledge: Option<&Knowledge>) -> Intent {
    understand(text, &InspectionState::default(), knowledge)
}

#[test]
fn inspection_starts() {
    for text in [
        "Start inspectie bij Trattoria Finta Fiore",
        "inspectie KVK 99990001",
        "Ik begin een inspectie bij Sushi Fikusho",
        "Start inspection at Trattoria Finta Fiore",
        "99990001",
        "Wat weet je over Grand Café De Droomkade?",
        "What do you know about Taco Ficticio?",
    ] {
        assert_eq!(classify(text), Intent::InspectionStart, "{text}");
        assert_eq!(classify(text).agent(), "history-agent");
    }
}

#[test]
fn findings() {
    for text in [
        "rauwe vis naast groenten bewaard op 12 °C",
        "muizenkeutels in de opslag",
        "Bevinding: geen zeep bij de wastafel in de keuken",
        "De koelcel staat op 11 graden",
        "Raw chicken stored above the salad in the fridge at 9 °C",
        "mouse droppings in the dry storage",
        "verlopen kip (TGT gisteren) in de koeling",
        "allergenenkaart ontbreekt",
    ] {
        assert_eq!(classify(text), Intent::Finding, "{text}");
        assert_eq!(classify(text).agent(), "regulation-agent");
    }
}

#[test]
fn regulation_questions() {
    for text in [
        "Which rules apply to allergen information in a restaurant?",
        "Welke regels gelden voor allergeneninformatie?",
        "Hoe koud moet de koelcel zijn?",
        "Wat zegt artikel 44 van Verordening 1169/2011?",
        "What are the requirements for hand washing facilities?",
        "Is een hygiënecode verplicht?",
        "regelgeving over Listeria in gerookte vis",
    ] {
        assert_eq!(classify(text), Intent::RegulationQuestion, "{text}");
    }
}

#[test]
fn report_requests() {
    for text in [
        "Genereer het rapport",
        "maak het inspectierapport",
        "generate the report",
        "Kun je het rapport opstellen?",
        "Rapport graag",
        "rapport",
        "Rond de inspectie af",
        "Please create the inspection report",
        // The report is the PDF (issue 32, kind 10), also after a rejection.
        "Zet het maar in een PDF.",
        "Send me the PDF.",
        "Oké, nu wel de PDF graag.",
        "Right, let's have the PDF now.",
    ] {
        assert_eq!(classify(text), Intent::ReportRequest, "{text}");
        assert_eq!(classify(text).agent(), "reporting-agent");
    }
    // A question about an earlier PDF asks for no new report.
    assert_ne!(
        classify("Waar staat de PDF van de vorige inspectie?"),
        Intent::ReportRequest
    );
}

#[test]
fn greetings_help_and_other() {
    for text in ["Hallo", "hoi!", "Goedemorgen", "Hello", "hi there"] {
        assert_eq!(classify(text), Intent::Greeting, "{text}");
    }
    for text in [
        "Wat kun je?",
        "help",
        "What can you do?",
        "Hoe werkt dit?",
        "",
    ] {
        assert_eq!(classify(text), Intent::Help, "{text}");
    }
    // No question or request is refused: the corpus is searched, and the answer says when it
    // has nothing and where to look.
    for text in [
        "Wat is de hoofdstad van Frankrijk?",
        "Hoe laat is het?",
        "Tell a joke",
    ] {
        assert_eq!(classify(text), Intent::RegulationQuestion, "{text}");
    }
}

#[test]
fn languages() {
    assert_eq!(
        detect_language("Which rules apply to allergen information in a restaurant?"),
        Lang::En
    );
    assert_eq!(
        detect_language("Start inspection at Trattoria Finta Fiore"),
        Lang::En
    );
    assert_eq!(detect_language("generate the report"), Lang::En);
    assert_eq!(
        detect_language("Start inspectie bij Trattoria Finta Fiore"),
        Lang::Nl
    );
    assert_eq!(
        detect_language("rauwe vis naast groenten bewaard op 12 °C"),
        Lang::Nl
    );
    assert_eq!(detect_language("Genereer het rapport"), Lang::Nl);
    assert_eq!(detect_language("99990001"), Lang::Nl);
}

#[test]
fn severities() {
    assert_eq!(
        suggested_severity("rauwe vis naast groenten bewaard op 12 °C"),
        "ernstig"
    );
    assert_eq!(suggested_severity("muizenkeutels in de opslag"), "ernstig");
    assert_eq!(suggested_severity("koelcel op 8 °C"), "matig");
    assert_eq!(
        suggested_severity("temperatuurregistratie onvolledig"),
        "licht"
    );
    assert_eq!(suggested_severity("allergenenkaart ontbreekt"), "matig");
}

#[test]
fn routing_with_the_register_recognises_company_names() {
    let kb = Knowledge::load().unwrap();
    for text in [
        "Trattoria Finta Fiore",
        "Finta Fiore",
        "Sushi Fikusho",
        "we zijn bij De Denkbeeldige Frituur",
        // A history question that names a company (the register tells it is one) opens it.
        "Toon de inspectiegeschiedenis van Slagerij Verzinsel",
        "Kun je de slagerij in Eindhoven openen?",
        "Bakkerij De Zonnebloem in Zwolle",
    ] {
        assert_eq!(route(text, Some(&kb)), Intent::InspectionStart, "{text}");
    }
    assert_eq!(route("Finta Fiore", None), Intent::Chatter);
    // Going on to another registered company, however it is said, opens it (issue 32, kind
    // 1): the sentence is never a finding of the company left behind.
    let open = InspectionState {
        company: Some(agora_hai::orchestrator::inspection::CompanyRef {
            kvk: "99990001".to_owned(),
            name: "Trattoria Finta Fiore".to_owned(),
            ..Default::default()
        }),
        ..InspectionState::default()
    };
    for text in [
        "Moving on to Sushi Fikusho in Amsterdam.",
        "We gaan verder bij Catering Smaakfictie in Zwolle.",
        "Op naar Grillroom Hayalet in Arnhem.",
        "Switching to Toko Fabelmarkt in Den Haag now.",
        "Heading over to Bakkerij Denkdeeg in Utrecht.",
    ] {
        assert_eq!(
            understand(text, &open, Some(&kb)),
            Intent::InspectionStart,
            "{text}"
        );
    }
    // A move word before something that is not a company stays an observation.
    assert_eq!(
        understand(
            "Put the lid back on to the container of raw chicken.",
            &open,
            Some(&kb)
        ),
        Intent::Finding
    );
    // A kind of business alone: the history agent asks which one is meant.
    assert_eq!(route("Restaurant", Some(&kb)), Intent::InspectionStart);
    assert_eq!(route("Hallo", Some(&kb)), Intent::Greeting);
    assert_eq!(
        route("muizenkeutels in de opslag", Some(&kb)),
        Intent::Finding
    );
}

#[test]
fn the_past_of_the_open_company_in_other_words_is_its_history() {
    // Issue 32, kind 6: these ask what happened at this company before, not what the law says.
    let open = InspectionState {
        company: Some(agora_hai::orchestrator::inspection::CompanyRef {
            kvk: "99990003".to_owned(),
            name: "Bakkerij Denkdeeg".to_owned(),
            ..Default::default()
        }),
        ..InspectionState::default()
    };
    for text in [
        "Zijn hier eerder muizen aangetroffen?",
        "Wat was er in 2025 aan de hand?",
        "Remind me when we were last here.",
        "And did anything come up about allergens on the delivery platform back then?",
        "Has anything like this been found here before?",
    ] {
        assert_eq!(understand(text, &open, None), Intent::History, "{text}");
    }
    // The law about the same subject is still a question for the regulations.
    for text in [
        "Hoe moet ongedierte bestreden worden?",
        "How cold must the display be?",
    ] {
        assert_eq!(
            understand(text, &open, None),
            Intent::RegulationQuestion,
            "{text}"
        );
    }
}
