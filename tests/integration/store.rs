//! The store on its own, run against both databases: SQLite (a file in a temporary directory)
//! and PostgreSQL (a fresh database on the server `AGORA_TEST_POSTGRES_URL` names; `make test`
//! starts a throw-away one, see `scripts/with-postgres.sh`). Messages in order, runs cut off
//! by a stop, the approval audit log, cascades, users and preferences; and what instances on
//! one database share: run leases, the event log, rate limits.
#![cfg(feature = "ssr")]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use agora_hai::orchestrator::cluster::{Peers, SharedEvent};
use agora_hai::orchestrator::store::{
    ApprovalDecision, ApprovalRecord, InterruptRecord, RunStatus, Store, StoreError, Turn,
    TurnRequest,
};
use agora_hai::protocol::Message;
use agora_hai::server::cluster::PgPeers;
use agora_hai::server::store::{
    Database, Lease, MailFailure, MailState, MailStore, NewUser, PreferencesUpdate,
    ReportMailRecord, SqlStore, Theme, UNTITLED, UserRole, UserUpdate,
};
use common::TempDir;
use common::postgres::fresh_database;
use serde_json::json;

/// Where a test's store lives; opening it again is a restart of the instance.
enum Backend {
    Sqlite(TempDir),
    Postgres(String),
}

impl Backend {
    async fn sqlite() -> Self {
        Self::Sqlite(TempDir::new("agora-store"))
    }

    async fn postgres() -> Self {
        Self::Postgres(fresh_database().await)
    }

    async fn open(&self) -> SqlStore {
        self.open_with(Lease::default()).await
    }

    /// Another instance, or this one restarted: a fresh instance id, `lease` long.
    async fn open_with(&self, lease: Lease) -> SqlStore {
        match self {
            Self::Sqlite(dir) => {
                let url = format!("sqlite://{}?mode=rwc", dir.0.join("agora.db").display());
                SqlStore::connect(&url, lease).await.unwrap()
            }
            Self::Postgres(url) => SqlStore::connect(url, lease).await.unwrap(),
        }
    }
}

/// Each test runs once on SQLite and once on PostgreSQL.
macro_rules! both {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(#[tokio::test]
            async fn $name() {
                super::$name(super::Backend::sqlite().await).await;
            })*
        }
        mod postgres {
            $(#[tokio::test]
            async fn $name() {
                super::$name(super::Backend::postgres().await).await;
            })*
        }
    };
}

both!(
    messages_round_trip_in_order_and_survive_a_reopen,
    a_batch_of_messages_is_appended_whole_and_a_held_one_changes_nothing,
    unknown_and_foreign_threads_are_not_found,
    runs_left_running_become_interrupted_on_reopen,
    approvals_are_an_audit_log,
    deleting_a_thread_takes_its_messages_runs_and_approvals,
    threads_list_by_last_activity_and_can_be_renamed,
    users_preferences_and_cascading_deletes,
    concurrent_appends_number_a_thread_without_gaps,
    a_dead_instances_runs_are_interrupted_once_their_lease_runs_out,
    the_event_log_keeps_each_threads_events_in_order,
    rate_limits_hold_for_every_instance,
    a_client_coming_back_elsewhere_gets_the_whole_log,
    a_turn_begins_in_one_transaction,
    a_refused_turn_writes_nothing,
    a_reports_mail_status_is_replaced_by_each_try_and_goes_with_its_user,
    a_thread_read_again_has_what_any_instance_stored_since,
    a_run_is_recorded_with_its_turn_and_ended_with_its_answer,
    a_step_names_its_thread_in_its_own_transaction,
    a_refused_end_or_step_writes_nothing,
);

fn message(value: serde_json::Value) -> Message {
    serde_json::from_value(value).unwrap()
}

fn conversation() -> Vec<Message> {
    vec![
        message(
            json!({"role": "user", "id": "m1", "content": "Start inspectie bij Trattoria Finta Fiore\nAmsterdam"}),
        ),
        message(
            json!({"role": "assistant", "id": "m2", "name": "history-agent", "toolCalls": [
                {"id": "call-1", "type": "function", "function": {"name": "get_company_info", "arguments": "{\"naam\":\"Finta Fiore\"}"}}
            ]}),
        ),
        message(
            json!({"role": "tool", "id": "m3", "toolCallId": "call-1", "content": "{\"kvk\":\"12345678\"}"}),
        ),
        message(
            json!({"role": "assistant", "id": "m4", "name": "history-agent", "content": "Finta Fiore is bekend."}),
        ),
        message(
            json!({"role": "user", "id": "m5", "content": [{"type": "text", "text": "Welke regels gelden?"}]}),
        ),
        message(
            json!({"role": "assistant", "id": "m6", "name": "regulation-agent", "content": "Artikel 5 …", "spokenText": "Artikel vijf"}),
        ),
    ]
}

async fn messages_round_trip_in_order_and_survive_a_reopen(backend: Backend) {
    let store = backend.open().await;
    let thread = store.open_thread("t1", "koen", "").await.unwrap();
    assert_eq!(thread.title, UNTITLED);
    assert_eq!(thread.message_count, 0);

    let messages = conversation();
    for m in &messages {
        store.append_message("t1", m).await.unwrap();
    }
    // Appending a message the thread already holds changes nothing.
    store.append_message("t1", &messages[0]).await.unwrap();
    assert_eq!(store.messages("t1").await.unwrap(), messages);
    // A message is found by its id in its own thread only.
    assert!(store.has_message("t1", "m5").await.unwrap());
    assert!(!store.has_message("t1", "m9").await.unwrap());
    store.open_thread("t2", "koen", "").await.unwrap();
    assert!(!store.has_message("t2", "m5").await.unwrap());
    assert!(!store.has_message("nope", "m5").await.unwrap());

    let thread = store.thread("t1").await.unwrap();
    assert_eq!(thread.title, "Start inspectie bij Trattoria Finta Fiore");
    assert_eq!(thread.owner, "koen");
    // User and assistant messages with text: m1, m4, m5, m6.
    assert_eq!(thread.message_count, 4);
    assert!(thread.last_activity > thread.created_at);

    // A message without an id gets one, so snapshots can refer to it.
    store
        .append_message(
            "t1",
            &message(json!({"role": "user", "content": "zonder id"})),
        )
        .await
        .unwrap();
    let stored = store.messages("t1").await.unwrap();
    let Message::User(last) = stored.last().unwrap() else {
        panic!("{stored:?}")
    };
    assert!(last.id.as_deref().is_some_and(|id| !id.is_empty()));

    store.close().await;
    drop(store);
    let store = backend.open().await;
    assert_eq!(store.messages("t1").await.unwrap(), stored);
    assert_eq!(store.thread("t1").await.unwrap().message_count, 5);
}

async fn a_batch_of_messages_is_appended_whole_and_a_held_one_changes_nothing(backend: Backend) {
    let store = backend.open().await;
    store.open_thread("t1", "koen", "").await.unwrap();
    let messages = conversation();
    store.append_messages("t1", &messages[..3]).await.unwrap();
    assert_eq!(store.messages("t1").await.unwrap(), messages[..3]);
    // A batch that repeats a stored message in its middle: the new ones are appended in
    // order, the held one once, and only the new ones are counted.
    let mut batch = vec![messages[3].clone(), messages[1].clone()];
    batch.extend_from_slice(&messages[4..]);
    store.append_messages("t1", &batch).await.unwrap();
    assert_eq!(store.messages("t1").await.unwrap(), messages);
    let thread = store.thread("t1").await.unwrap();
    assert_eq!(thread.message_count, 4);
    assert_eq!(thread.title, "Start inspectie bij Trattoria Finta Fiore");
    // An empty batch writes nothing; a batch for a thread that does not exist is refused whole.
    store.append_messages("t1", &[]).await.unwrap();
    assert!(matches!(
        store.append_messages("nope", &messages[..2]).await,
        Err(StoreError::NotFound(_))
    ));
    assert_eq!(store.messages("t1").await.unwrap(), messages);
}

async fn unknown_and_foreign_threads_are_not_found(backend: Backend) {
    let store = backend.open().await;
    let not_found = |r: Result<_, StoreError>| matches!(r, Err(StoreError::NotFound(_)));
    assert!(not_found(store.thread("nope").await.map(|_| ())));
    assert!(not_found(store.messages("nope").await.map(|_| ())));
    assert!(not_found(store.runs("nope").await.map(|_| ())));
    assert!(not_found(store.approvals("nope").await.map(|_| ())));
    assert!(not_found(
        store.append_message("nope", &conversation()[0]).await
    ));
    assert!(not_found(store.start_run("r", "nope").await));

    let first = store
        .open_thread("t1", "koen", "Eerste vraag")
        .await
        .unwrap();
    assert_eq!(first.title, "Eerste vraag");
    // Reopening by the owner keeps the title; someone else is told it does not exist.
    let again = store
        .open_thread("t1", "koen", "Iets anders")
        .await
        .unwrap();
    assert_eq!(again.title, "Eerste vraag");
    assert!(not_found(
        store.open_thread("t1", "fatima", "x").await.map(|_| ())
    ));
}

async fn runs_left_running_become_interrupted_on_reopen(backend: Backend) {
    // A short lease: with PostgreSQL a restarted instance interrupts only runs whose lease
    // ran out (others may belong to live instances); with SQLite, every run left running.
    let lease = Lease {
        duration: Duration::from_millis(200),
        ..Default::default()
    };
    let store = backend.open_with(lease).await;
    assert_eq!(store.interrupted_at_startup(), 0);
    store.open_thread("t1", "koen", "vraag").await.unwrap();
    store.start_run("r1", "t1").await.unwrap();
    store
        .finish_run("r1", RunStatus::Finished, None)
        .await
        .unwrap();
    store.start_run("r2", "t1").await.unwrap();
    store
        .finish_run("r2", RunStatus::Error, Some("model weg"))
        .await
        .unwrap();
    store.start_run("r3", "t1").await.unwrap();
    assert!(matches!(
        store.start_run("r3", "t1").await,
        Err(StoreError::Conflict(_))
    ));
    assert!(matches!(
        store.finish_run("nope", RunStatus::Finished, None).await,
        Err(StoreError::NotFound(_))
    ));
    // The first ending wins.
    store
        .finish_run("r1", RunStatus::Cancelled, None)
        .await
        .unwrap();
    let runs = store.runs("t1").await.unwrap();
    assert_eq!(
        runs.iter()
            .map(|r| (r.id.as_str(), r.status))
            .collect::<Vec<_>>(),
        [
            ("r1", RunStatus::Finished),
            ("r2", RunStatus::Error),
            ("r3", RunStatus::Running)
        ]
    );
    assert_eq!(runs[1].error.as_deref(), Some("model weg"));
    assert!(runs[2].finished_at.is_none());
    // No orderly close: the process "dies" with r3 running.
    drop(store);
    tokio::time::sleep(Duration::from_millis(300)).await;

    let store = backend.open().await;
    assert_eq!(store.interrupted_at_startup(), 1);
    let runs = store.runs("t1").await.unwrap();
    assert_eq!(runs[0].status, RunStatus::Finished);
    assert_eq!(runs[1].status, RunStatus::Error);
    assert_eq!(runs[2].status, RunStatus::Interrupted);
    assert!(runs[2].finished_at.is_some());
    // The thread carries on.
    store.start_run("r4", "t1").await.unwrap();
    store
        .finish_run("r4", RunStatus::Finished, None)
        .await
        .unwrap();
    store.close().await;
    drop(store);
    assert_eq!(backend.open().await.interrupted_at_startup(), 0);
}

fn approval(id: &str) -> ApprovalRecord {
    ApprovalRecord {
        approval_id: id.to_owned(),
        thread_id: "t1".to_owned(),
        run_id: "r1".to_owned(),
        tool_call_id: "call-9".to_owned(),
        tool_name: "generate_final_report".to_owned(),
        parameters: json!({"bedrijf": "Finta Fiore", "bevindingen": [1, 2]}),
        risk_level: "high".to_owned(),
        requested_by: "reporting-agent".to_owned(),
        requested_at: 1_700_000_000_000,
        decision: None,
    }
}

async fn approvals_are_an_audit_log(backend: Backend) {
    let store = backend.open().await;
    store.open_thread("t1", "koen", "rapport").await.unwrap();
    store.start_run("r1", "t1").await.unwrap();
    store
        .record_approval_request(&approval("a1"))
        .await
        .unwrap();
    store
        .record_approval_request(&approval("a2"))
        .await
        .unwrap();
    assert!(matches!(
        store.record_approval_request(&approval("a1")).await,
        Err(StoreError::Conflict(_))
    ));
    assert_eq!(
        store.approvals("t1").await.unwrap(),
        vec![approval("a1"), approval("a2")]
    );

    let decision = ApprovalDecision {
        approved: false,
        feedback: Some("Eerst de foto's toevoegen".to_owned()),
        decided_by: "koen".to_owned(),
        decided_at: 1_700_000_005_000,
        edited_args: None,
    };
    store
        .record_approval_decision("a1", &decision)
        .await
        .unwrap();
    // An approval with edits keeps them beside the agent's arguments.
    let with_edits = ApprovalDecision {
        approved: true,
        feedback: None,
        edited_args: Some(serde_json::json!({"kvk": "99990001", "leave_out": [2]})),
        ..decision.clone()
    };
    store
        .record_approval_decision("a2", &with_edits)
        .await
        .unwrap();
    // A decision is never rewritten.
    let other = ApprovalDecision {
        approved: true,
        ..decision.clone()
    };
    assert!(matches!(
        store.record_approval_decision("a1", &other).await,
        Err(StoreError::Conflict(_))
    ));
    assert!(matches!(
        store.record_approval_decision("nope", &other).await,
        Err(StoreError::NotFound(_))
    ));
    let log = store.approvals("t1").await.unwrap();
    assert_eq!(log[0].decision.as_ref(), Some(&decision));
    assert_eq!(log[1].decision.as_ref(), Some(&with_edits));
}

async fn deleting_a_thread_takes_its_messages_runs_and_approvals(backend: Backend) {
    let store = backend.open().await;
    store.open_thread("t1", "koen", "vraag").await.unwrap();
    for m in conversation() {
        store.append_message("t1", &m).await.unwrap();
    }
    store.start_run("r1", "t1").await.unwrap();
    store
        .record_approval_request(&approval("a1"))
        .await
        .unwrap();
    store.open_thread("t2", "koen", "andere").await.unwrap();
    store
        .append_message("t2", &conversation()[0])
        .await
        .unwrap();

    store.delete_thread("t1").await.unwrap();
    assert!(matches!(
        store.messages("t1").await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.delete_thread("t1").await,
        Err(StoreError::NotFound(_))
    ));
    // A new thread under the same id starts empty: nothing was left behind.
    store.open_thread("t1", "koen", "opnieuw").await.unwrap();
    assert!(store.messages("t1").await.unwrap().is_empty());
    assert!(store.runs("t1").await.unwrap().is_empty());
    assert!(store.approvals("t1").await.unwrap().is_empty());
    // The other thread is untouched; the message id m1 may exist in both threads.
    assert_eq!(store.messages("t2").await.unwrap().len(), 1);
    store
        .append_message("t1", &conversation()[0])
        .await
        .unwrap();
    assert_eq!(store.messages("t1").await.unwrap().len(), 1);
}

async fn threads_list_by_last_activity_and_can_be_renamed(backend: Backend) {
    let store = backend.open().await;
    for id in ["a", "b", "c"] {
        store
            .open_thread(id, "koen", &format!("vraag {id}"))
            .await
            .unwrap();
    }
    store
        .open_thread("x", "fatima", "niet van koen")
        .await
        .unwrap();
    store.append_message("a", &conversation()[0]).await.unwrap();

    let page = store.list_threads("koen", 50, 0).await.unwrap();
    assert_eq!(page.total, 3);
    let ids: Vec<_> = page.items.iter().map(|s| s.thread.id.as_str()).collect();
    assert_eq!(ids, ["a", "c", "b"]);
    assert_eq!(
        page.items[0].first_message_preview,
        "Start inspectie bij Trattoria Finta Fiore Amsterdam"
    );
    let second = store.list_threads("koen", 2, 2).await.unwrap();
    assert_eq!(second.total, 3);
    assert_eq!(second.items.len(), 1);
    assert_eq!(second.items[0].thread.id, "b");

    let renamed = store.rename_thread("b", "Mijn titel").await.unwrap();
    assert_eq!(renamed.thread.title, "Mijn titel");
    // A renamed thread keeps its title.
    store.append_message("b", &conversation()[0]).await.unwrap();
    assert_eq!(store.thread("b").await.unwrap().title, "Mijn titel");
    assert!(matches!(
        store.rename_thread("nope", "t").await,
        Err(StoreError::NotFound(_))
    ));
}

async fn users_preferences_and_cascading_deletes(backend: Backend) {
    let store: Arc<dyn Database> = Arc::new(backend.open().await);
    let jan = store
        .create_user(&NewUser {
            id: None,
            email: "jan@nvwa.nl".to_owned(),
            name: "Jan".to_owned(),
            role: UserRole::Inspector,
        })
        .await
        .unwrap();
    assert_eq!(jan.preferences.theme, Theme::System);
    // Read (and, with SQLite, kept in memory) before they change: every write is seen.
    assert_eq!(
        store.preferences(&jan.id).await.unwrap().theme,
        Theme::System
    );
    let duplicate = NewUser {
        id: None,
        email: "JAN@nvwa.nl".to_owned(),
        name: "Jan 2".to_owned(),
        role: UserRole::Viewer,
    };
    assert!(matches!(
        store.create_user(&duplicate).await,
        Err(StoreError::Conflict(_))
    ));

    let preferences = store
        .update_preferences(
            &jan.id,
            &PreferencesUpdate {
                theme: Some(Theme::Dark),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(preferences.theme, Theme::Dark);
    assert!(preferences.notifications_enabled);
    assert_eq!(store.preferences(&jan.id).await.unwrap(), preferences);
    // With PostgreSQL another instance may write them: this one sees it at the next read.
    if let Backend::Postgres(_) = &backend {
        let other = backend.open().await;
        let light = PreferencesUpdate {
            theme: Some(Theme::Light),
            ..Default::default()
        };
        other.update_preferences(&jan.id, &light).await.unwrap();
        assert_eq!(
            store.preferences(&jan.id).await.unwrap().theme,
            Theme::Light
        );
        let dark = PreferencesUpdate {
            theme: Some(Theme::Dark),
            ..Default::default()
        };
        other.update_preferences(&jan.id, &dark).await.unwrap();
        assert_eq!(store.preferences(&jan.id).await.unwrap().theme, Theme::Dark);
    }
    let updated = store
        .update_user(
            &jan.id,
            &UserUpdate {
                role: Some(UserRole::Admin),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(updated.role, UserRole::Admin);
    assert_eq!(updated.name, "Jan");
    assert_eq!(updated.preferences.theme, Theme::Dark);
    let updated = store
        .update_user(
            &jan.id,
            &UserUpdate {
                preferences: Some(PreferencesUpdate {
                    notifications_enabled: Some(false),
                    ..Default::default()
                }),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(!updated.preferences.notifications_enabled);
    assert_eq!(
        store.preferences(&jan.id).await.unwrap(),
        updated.preferences
    );

    // The orchestrator sees the same store through the Store trait.
    let orchestrator: Arc<dyn Store> = store.clone();
    orchestrator
        .open_thread("t1", &jan.id, "een")
        .await
        .unwrap();
    orchestrator
        .open_thread("t2", &jan.id, "twee")
        .await
        .unwrap();
    orchestrator.start_run("r1", "t1").await.unwrap();
    orchestrator
        .open_thread("t3", "someone-else", "drie")
        .await
        .unwrap();

    assert_eq!(store.delete_user(&jan.id).await.unwrap(), 2);
    assert!(matches!(
        store.user(&jan.id).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.thread("t1").await,
        Err(StoreError::NotFound(_))
    ));
    assert!(store.thread("t3").await.is_ok());
    assert!(matches!(
        store.delete_user(&jan.id).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.preferences(&jan.id).await,
        Err(StoreError::NotFound(_))
    ));
    // Someone not stored has none until they are.
    assert!(matches!(
        store.preferences("ines").await,
        Err(StoreError::NotFound(_))
    ));
    store
        .create_user(&NewUser {
            id: Some("ines".to_owned()),
            email: "ines@nvwa.nl".to_owned(),
            name: "Ines".to_owned(),
            role: UserRole::Inspector,
        })
        .await
        .unwrap();
    assert_eq!(
        store.preferences("ines").await.unwrap().theme,
        Theme::System
    );
}

async fn concurrent_appends_number_a_thread_without_gaps(backend: Backend) {
    // Two instances writing to one thread at once: numbering is the database's job.
    let a = Arc::new(backend.open().await);
    let b = Arc::new(backend.open().await);
    a.open_thread("t1", "koen", "").await.unwrap();
    let mut tasks = Vec::new();
    for n in 0..40 {
        let store = if n % 2 == 0 { a.clone() } else { b.clone() };
        tasks.push(tokio::spawn(async move {
            let m = message(
                json!({"role": "user", "id": format!("m{n}"), "content": format!("bericht {n}")}),
            );
            store.append_message("t1", &m).await.unwrap();
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let stored = a.messages("t1").await.unwrap();
    assert_eq!(stored.len(), 40);
    let mut ids: Vec<String> = stored
        .iter()
        .map(|m| match m {
            Message::User(u) => u.id.clone().unwrap(),
            other => panic!("{other:?}"),
        })
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 40, "every message once");
    assert_eq!(b.thread("t1").await.unwrap().message_count, 40);
}

async fn a_dead_instances_runs_are_interrupted_once_their_lease_runs_out(backend: Backend) {
    let short = |id: &str| Lease {
        instance_id: id.to_owned(),
        duration: Duration::from_millis(400),
    };
    let a = backend.open_with(short("a")).await;
    let b = backend.open_with(short("b")).await;
    a.open_thread("t1", "koen", "vraag").await.unwrap();
    a.start_run("run-a", "t1").await.unwrap();
    b.start_run("run-b", "t1").await.unwrap();
    // Both renew in time: nothing expires.
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert_eq!(a.renew_leases().await.unwrap().renewed, 1);
        assert_eq!(b.renew_leases().await.unwrap().renewed, 1);
        assert!(b.interrupt_expired_runs().await.unwrap().is_empty());
    }
    // A stops renewing (it died): B marks A's run, and only A's, interrupted.
    tokio::time::sleep(Duration::from_millis(600)).await;
    b.renew_leases().await.unwrap();
    let expired = b.interrupt_expired_runs().await.unwrap();
    assert_eq!(expired.len(), 1, "{expired:?}");
    assert_eq!(expired[0].run_id, "run-a");
    assert_eq!(expired[0].thread_id, "t1");
    let run = b.run("run-a").await.unwrap();
    assert_eq!(run.status, RunStatus::Interrupted);
    assert!(run.finished_at.is_some());
    assert_eq!(b.run("run-b").await.unwrap().status, RunStatus::Running);
    // Marked once: the next sweep finds nothing, and A's late ending changes nothing.
    assert!(b.interrupt_expired_runs().await.unwrap().is_empty());
    a.finish_run("run-a", RunStatus::Finished, None)
        .await
        .unwrap();
    assert_eq!(b.run("run-a").await.unwrap().status, RunStatus::Interrupted);
}

async fn the_event_log_keeps_each_threads_events_in_order(backend: Backend) {
    let store = backend.open().await;
    let event = |thread: &str, seq: u64| SharedEvent {
        thread_id: thread.to_owned(),
        seq,
        run_id: "r1".into(),
        json: format!(r#"{{"type":"CUSTOM","name":"n","value":{seq},"seq":{seq}}}"#).into(),
    };
    assert_eq!(store.last_event_seq("t1").await.unwrap(), 0);
    let batch: Vec<SharedEvent> = (100..350).map(|n| event("t1", n)).collect();
    store.append_events(&batch, &[]).await.unwrap();
    store.append_events(&[event("t2", 7)], &[]).await.unwrap();
    // Written again (a retried batch): nothing doubles.
    store.append_events(&batch[..10], &[]).await.unwrap();
    assert_eq!(store.last_event_seq("t1").await.unwrap(), 349);
    assert_eq!(store.last_event_seq("t2").await.unwrap(), 7);
    let after = store.events_after("t1", 199, 1000).await.unwrap();
    assert_eq!(after.len(), 150);
    assert_eq!(after[0], event("t1", 200));
    assert!(after.windows(2).all(|w| w[1].seq == w[0].seq + 1));
    assert_eq!(store.events_after("t1", 100, 5).await.unwrap().len(), 5);
    // Pruned by age: nothing is younger than an hour, everything is younger than zero.
    assert_eq!(
        store.prune_events(Duration::from_secs(3600)).await.unwrap(),
        0
    );
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert_eq!(store.prune_events(Duration::ZERO).await.unwrap(), 251);
    assert_eq!(store.last_event_seq("t1").await.unwrap(), 0);
}

async fn rate_limits_hold_for_every_instance(backend: Backend) {
    let a = backend.open().await;
    let b = backend.open().await;
    // Three a minute: three at once from either instance, then a wait of about 20 s.
    assert_eq!(a.take_run_slot("koen", 3).await.unwrap(), None);
    assert_eq!(b.take_run_slot("koen", 3).await.unwrap(), None);
    assert_eq!(a.take_run_slot("koen", 3).await.unwrap(), None);
    let wait = b.take_run_slot("koen", 3).await.unwrap().expect("refused");
    assert!(
        wait > Duration::from_secs(15) && wait <= Duration::from_secs(20),
        "{wait:?}"
    );
    assert!(a.take_run_slot("koen", 3).await.unwrap().is_some());
    // Someone else has their own allowance.
    assert_eq!(b.take_run_slot("fatima", 3).await.unwrap(), None);
}

async fn a_client_coming_back_elsewhere_gets_the_whole_log(backend: Backend) {
    // What another instance reads for a client whose last event was `after`: everything from
    // it on, however long (a run that ended rings no more), or nothing when `after` is gone.
    let store = Arc::new(backend.open().await);
    let events: Vec<SharedEvent> = (100..2_600)
        .map(|seq| SharedEvent {
            thread_id: "t1".to_owned(),
            seq,
            run_id: "r1".into(),
            json: format!(r#"{{"type":"CUSTOM","name":"n","value":{seq},"seq":{seq}}}"#).into(),
        })
        .collect();
    store.append_events(&events, &[]).await.unwrap();
    let peers = PgPeers::start(store.clone());
    let read = peers.events_after("t1", 150).await.unwrap().expect("held");
    assert_eq!(read.len(), 2_450);
    assert_eq!(read[0].seq, 150);
    assert!(read.windows(2).all(|w| w[1].seq == w[0].seq + 1));
    assert_eq!(read.last(), events.last());
    assert_eq!(peers.events_after("t1", 99).await.unwrap(), None);
    assert_eq!(peers.events_after("t2", 150).await.unwrap(), None);
}

/// What a call left without a result gets in these tests.
fn closed(call_id: &str, name: &str) -> Message {
    message(
        json!({"role": "tool", "id": format!("closed-{call_id}"), "toolCallId": call_id,
        "content": format!("{{\"status\":\"interrupted\",\"tool\":\"{name}\"}}")}),
    )
}

fn turn<'a>(thread_id: &'a str, owner: &'a str, message: Option<&'a Message>) -> TurnRequest<'a> {
    TurnRequest {
        thread_id,
        owner,
        title_text: "Start inspectie bij Finta Fiore",
        run_id: None,
        refuse_open_interrupts: false,
        results: &[],
        keep_open: &[],
        close_call: closed,
        close_approvals: None,
        message,
    }
}

/// A turn of `koen` that asks for run `r1`, taken already, is refused on his thread `t1` and
/// on a new one, and the new thread `t2` is not created.
async fn taken_run_id_is_refused(store: &SqlStore, message: &Message) {
    for thread in ["t1", "t2"] {
        let mut request = turn(thread, "koen", Some(message));
        request.run_id = Some("r1");
        assert!(matches!(
            store.begin_turn(&request).await,
            Ok(Turn::RunIdInUse)
        ));
    }
    assert!(matches!(
        store.thread("t2").await,
        Err(StoreError::NotFound(_))
    ));
}

fn begun(turn: Turn) -> (Vec<Message>, Vec<String>) {
    match turn {
        Turn::Begun {
            messages, answered, ..
        } => (messages, answered),
        other => panic!("not begun: {other:?}"),
    }
}

async fn a_turn_begins_in_one_transaction(backend: Backend) {
    let store = backend.open().await;
    // A new thread: created for its owner, named, the message stored.
    let m1 =
        message(json!({"role": "user", "id": "m1", "content": "Start inspectie bij Finta Fiore"}));
    let (messages, answered) = begun(
        store
            .begin_turn(&turn("t1", "koen", Some(&m1)))
            .await
            .unwrap(),
    );
    assert_eq!(messages, vec![m1.clone()]);
    assert!(answered.is_empty());
    assert_eq!(store.messages("t1").await.unwrap(), messages);
    let thread = store.thread("t1").await.unwrap();
    assert_eq!((thread.owner.as_str(), thread.message_count), ("koen", 1));
    assert_eq!(thread.title, "Start inspectie bij Finta Fiore");

    // What a stopped run left open is closed before the message: calls get a result, the
    // approvals a decision.
    let call = message(
        json!({"role": "assistant", "id": "a1", "name": "reporting-agent", "toolCalls": [
            {"id": "call-1", "type": "function", "function": {"name": "generate_final_report", "arguments": "{}"}}
        ]}),
    );
    store.append_message("t1", &call).await.unwrap();
    store.start_run("r1", "t1").await.unwrap();
    store
        .record_approval_request(&approval("ap1"))
        .await
        .unwrap();
    let rejected = ApprovalDecision::rejected_by_system("De server stopte.", 1_700_000_009_000);
    let m2 = message(json!({"role": "user", "id": "m2", "content": "En nu?"}));
    let mut request = turn("t1", "koen", Some(&m2));
    request.close_approvals = Some(&rejected);
    let (messages, _) = begun(store.begin_turn(&request).await.unwrap());
    let expected = vec![
        m1.clone(),
        call.clone(),
        closed("call-1", "generate_final_report"),
        m2.clone(),
    ];
    assert_eq!(messages, expected);
    assert_eq!(store.messages("t1").await.unwrap(), expected);
    assert_eq!(
        store.approvals("t1").await.unwrap()[0].decision,
        Some(rejected)
    );
    assert_eq!(store.thread("t1").await.unwrap().message_count, 2);

    // The client's results are stored for the calls that wait for one (once each, others
    // ignored); a call kept open stays so; no message is fine.
    let calls = message(
        json!({"role": "assistant", "id": "a2", "name": "general-agent", "toolCalls": [
            {"id": "call-2", "type": "function", "function": {"name": "take_photo", "arguments": "{}"}},
            {"id": "call-3", "type": "function", "function": {"name": "generate_final_report", "arguments": "{}"}}
        ]}),
    );
    store.append_message("t1", &calls).await.unwrap();
    let results = [
        message(
            json!({"role": "tool", "id": "res-2", "toolCallId": "call-2", "content": "foto.jpg"}),
        ),
        message(
            json!({"role": "tool", "id": "res-2b", "toolCallId": "call-2", "content": "nog een"}),
        ),
        message(json!({"role": "tool", "id": "res-9", "toolCallId": "call-9", "content": "?"})),
    ];
    let keep_open = ["call-3".to_owned()];
    let mut request = turn("t1", "koen", None);
    request.results = &results;
    request.keep_open = &keep_open;
    let (messages, answered) = begun(store.begin_turn(&request).await.unwrap());
    assert_eq!(answered, vec!["call-2".to_owned()]);
    assert_eq!(
        &messages[messages.len() - 2..],
        &[calls.clone(), results[0].clone()]
    );
    assert_eq!(store.messages("t1").await.unwrap(), messages);

    // Without keeping it open, the waiting call is closed.
    let (messages, _) = begun(store.begin_turn(&turn("t1", "koen", None)).await.unwrap());
    assert_eq!(
        messages.last(),
        Some(&closed("call-3", "generate_final_report"))
    );
}

async fn a_refused_turn_writes_nothing(backend: Backend) {
    let store = backend.open().await;
    let m1 = message(json!({"role": "user", "id": "m1", "content": "Eerste vraag"}));
    begun(
        store
            .begin_turn(&turn("t1", "koen", Some(&m1)))
            .await
            .unwrap(),
    );
    let before = store.messages("t1").await.unwrap();

    // The same message again (a resend) is held.
    assert!(matches!(
        store.begin_turn(&turn("t1", "koen", Some(&m1))).await,
        Ok(Turn::Held)
    ));
    // Someone else's thread does not exist for them.
    let m2 = message(json!({"role": "user", "id": "m2", "content": "Tweede vraag"}));
    assert!(matches!(
        store.begin_turn(&turn("t1", "fatima", Some(&m2))).await,
        Err(StoreError::NotFound(_))
    ));
    // A run id that is taken refuses the turn, and a new thread is not created for it.
    store.start_run("r1", "t1").await.unwrap();
    taken_run_id_is_refused(&store, &m2).await;
    // Open interrupts refuse a turn that asks so, listed oldest first.
    for (id, at) in [("int-2", 1_700_000_002_000), ("int-1", 1_700_000_001_000)] {
        store
            .record_interrupt(&InterruptRecord {
                id: id.to_owned(),
                thread_id: "t1".to_owned(),
                run_id: "r1".to_owned(),
                reason: "tool_call".to_owned(),
                message: "Mag dit?".to_owned(),
                tool_call_id: format!("call-{id}"),
                tool_name: "generate_final_report".to_owned(),
                arguments: json!({}),
                response_schema: json!({"type": "object"}),
                created_at: at,
                expires_at: at + 600_000,
                resolution: None,
            })
            .await
            .unwrap();
    }
    let mut request = turn("t1", "koen", Some(&m2));
    request.refuse_open_interrupts = true;
    match store.begin_turn(&request).await.unwrap() {
        Turn::InterruptPending(ids) => assert_eq!(ids, vec!["int-1", "int-2"]),
        other => panic!("{other:?}"),
    }
    assert_eq!(store.messages("t1").await.unwrap(), before);
    assert_eq!(store.thread("t1").await.unwrap().message_count, 1);
}

/// One status a report, each try replacing the last (the card shows the last), surviving a
/// restart; deleting the user deletes where their reports were mailed.
async fn a_reports_mail_status_is_replaced_by_each_try_and_goes_with_its_user(backend: Backend) {
    let store = backend.open().await;
    let owner = store
        .create_user(&NewUser {
            id: None,
            email: "els@nvwa.nl".to_owned(),
            name: "Els".to_owned(),
            role: UserRole::Inspector,
        })
        .await
        .unwrap();
    assert_eq!(store.report_mail("rpt-1").await.unwrap(), None);
    let failed = ReportMailRecord {
        report_id: "rpt-1".to_owned(),
        user_id: owner.id.clone(),
        state: MailState::Failed,
        recipient: Some("els@nvwa.nl".to_owned()),
        failure: Some(MailFailure::Unreachable),
        reason: Some("smtp://mail:587: Connection refused".to_owned()),
        updated_at: 0,
    };
    let stored = store.set_report_mail(&failed).await.unwrap();
    assert!(stored.updated_at > 0);
    assert_eq!(
        store.report_mail("rpt-1").await.unwrap().as_ref(),
        Some(&stored)
    );
    let sent = ReportMailRecord {
        state: MailState::Sent,
        failure: None,
        reason: None,
        ..failed.clone()
    };
    let resent = store.set_report_mail(&sent).await.unwrap();
    assert!(resent.updated_at > stored.updated_at);
    // Another report's status is its own.
    store
        .set_report_mail(&ReportMailRecord {
            report_id: "rpt-2".to_owned(),
            state: MailState::Sending,
            recipient: None,
            ..failed.clone()
        })
        .await
        .unwrap();
    drop(store);
    let store = backend.open().await;
    assert_eq!(store.report_mail("rpt-1").await.unwrap(), Some(resent));
    assert_eq!(
        store.report_mail("rpt-2").await.unwrap().map(|r| r.state),
        Some(MailState::Sending)
    );
    // `off` is the server's configuration, never a stored state.
    assert!(
        store
            .set_report_mail(&ReportMailRecord {
                state: MailState::Off,
                ..failed
            })
            .await
            .is_err()
    );
    store.delete_user(&owner.id).await.unwrap();
    assert_eq!(store.report_mail("rpt-1").await.unwrap(), None);
    assert_eq!(store.report_mail("rpt-2").await.unwrap(), None);
}

/// A store keeps the threads it read in memory and reads only what was stored since (issue
/// 36): what another instance appends, what a turn appends, and a thread deleted and made
/// again under its id by another instance all come back as stored, never the old reading.
async fn a_thread_read_again_has_what_any_instance_stored_since(backend: Backend) {
    let here = backend.open().await;
    let there = backend.open().await;
    let messages = conversation();
    here.open_thread("t1", "koen", "").await.unwrap();
    for m in &messages[..3] {
        here.append_message("t1", m).await.unwrap();
    }
    assert_eq!(here.messages("t1").await.unwrap(), messages[..3]);
    // Appended by the other instance, then by a turn here.
    for m in &messages[3..5] {
        there.append_message("t1", m).await.unwrap();
    }
    assert_eq!(here.messages("t1").await.unwrap(), messages[..5]);
    let request = turn("t1", "koen", Some(&messages[5]));
    let (seen, _) = begun(here.begin_turn(&request).await.unwrap());
    assert_eq!(seen, messages);
    assert_eq!(here.messages("t1").await.unwrap(), messages);
    assert_eq!(there.messages("t1").await.unwrap(), messages);

    // Deleted and made again elsewhere, with as many messages and more: the new thread.
    there.delete_thread("t1").await.unwrap();
    there.open_thread("t1", "koen", "").await.unwrap();
    let again: Vec<Message> = (1..=8)
        .map(|n| {
            message(
                json!({"role": "user", "id": format!("n{n}"), "content": format!("bericht {n}")}),
            )
        })
        .collect();
    for m in &again {
        there.append_message("t1", m).await.unwrap();
    }
    assert_eq!(here.messages("t1").await.unwrap(), again);
    let next = message(json!({"role": "user", "id": "n9", "content": "en nog een"}));
    let request = turn("t1", "koen", Some(&next));
    let (seen, _) = begun(here.begin_turn(&request).await.unwrap());
    assert_eq!(seen.len(), 9);
    assert_eq!(seen[..8], again[..]);

    // Deleted elsewhere and not made again: not found here either.
    there.delete_thread("t1").await.unwrap();
    assert!(matches!(
        here.messages("t1").await,
        Err(StoreError::NotFound(_))
    ));
}

/// Issue 36's fourth step: the run's record is written by its turn's transaction, its end by
/// its answer's.
async fn a_run_is_recorded_with_its_turn_and_ended_with_its_answer(backend: Backend) {
    let store = backend.open().await;
    let m1 = message(json!({"role": "user", "id": "m1", "content": "Welke regels gelden?"}));
    let mut request = turn("t1", "koen", Some(&m1));
    request.run_id = Some("r1");
    begun(store.begin_turn(&request).await.unwrap());
    let run = store.run("r1").await.unwrap();
    assert_eq!(
        (run.thread_id.as_str(), run.status),
        ("t1", RunStatus::Running)
    );
    assert!(run.finished_at.is_none());
    assert_eq!(store.messages("t1").await.unwrap(), vec![m1.clone()]);

    // The same run id again: refused, whatever else the turn brings, and nothing written.
    let m2 = message(json!({"role": "user", "id": "m2", "content": "En de koelcel?"}));
    taken_run_id_is_refused(&store, &m2).await;
    assert_eq!(store.messages("t1").await.unwrap(), vec![m1.clone()]);
    assert_eq!(store.runs("t1").await.unwrap().len(), 1);

    // The answer and the end in one.
    let answer = message(
        json!({"role": "assistant", "id": "a1", "name": "regulation-agent", "content": "Artikel 4 geldt."}),
    );
    store
        .append_and_finish_run(
            "t1",
            std::slice::from_ref(&answer),
            "r1",
            RunStatus::Finished,
            None,
        )
        .await
        .unwrap();
    let run = store.run("r1").await.unwrap();
    assert_eq!(run.status, RunStatus::Finished);
    assert!(run.finished_at.is_some());
    assert_eq!(
        store.messages("t1").await.unwrap(),
        vec![m1.clone(), answer.clone()]
    );
    assert_eq!(store.thread("t1").await.unwrap().message_count, 2);
    // The first ending wins; what comes with a later one is kept all the same, once.
    let late = message(
        json!({"role": "assistant", "id": "a2", "name": "regulation-agent", "content": "Nog iets."}),
    );
    store
        .append_and_finish_run(
            "t1",
            &[answer.clone(), late.clone()],
            "r1",
            RunStatus::Cancelled,
            None,
        )
        .await
        .unwrap();
    assert_eq!(store.run("r1").await.unwrap().status, RunStatus::Finished);
    assert_eq!(store.messages("t1").await.unwrap(), vec![m1, answer, late]);
    // No messages: the end alone.
    let mut request = turn("t1", "koen", Some(&m2));
    request.run_id = Some("r2");
    begun(store.begin_turn(&request).await.unwrap());
    store
        .append_and_finish_run("t1", &[], "r2", RunStatus::Error, Some("model weg"))
        .await
        .unwrap();
    let run = store.run("r2").await.unwrap();
    assert_eq!(
        (run.status, run.error.as_deref()),
        (RunStatus::Error, Some("model weg"))
    );
}

/// The thread's name after the company a step found goes with the step's messages; a person's
/// or an earlier company's name stays.
async fn a_step_names_its_thread_in_its_own_transaction(backend: Backend) {
    let store = backend.open().await;
    let messages = conversation();
    begun(
        store
            .begin_turn(&turn("t1", "koen", Some(&messages[0])))
            .await
            .unwrap(),
    );
    assert_eq!(
        store.thread("t1").await.unwrap().title,
        "Start inspectie bij Finta Fiore"
    );
    store
        .append_step(
            "t1",
            &messages[1..3],
            Some("Trattoria Finta Fiore, Amsterdam"),
        )
        .await
        .unwrap();
    assert_eq!(store.messages("t1").await.unwrap(), messages[..3]);
    assert_eq!(
        store.thread("t1").await.unwrap().title,
        "Trattoria Finta Fiore, Amsterdam"
    );
    // A later company does not rename it; a step without one changes no title.
    store
        .append_step("t1", &messages[3..4], Some("Bakkerij Fictief, Utrecht"))
        .await
        .unwrap();
    store.append_step("t1", &messages[4..], None).await.unwrap();
    let thread = store.thread("t1").await.unwrap();
    assert_eq!(thread.title, "Trattoria Finta Fiore, Amsterdam");
    assert_eq!(store.messages("t1").await.unwrap(), messages);
    assert_eq!(thread.message_count, 4);
    // A thread a person named keeps its name.
    begun(
        store
            .begin_turn(&turn("t2", "koen", Some(&messages[0])))
            .await
            .unwrap(),
    );
    store.rename_thread("t2", "Mijn titel").await.unwrap();
    store
        .append_step(
            "t2",
            &messages[1..3],
            Some("Trattoria Finta Fiore, Amsterdam"),
        )
        .await
        .unwrap();
    assert_eq!(store.thread("t2").await.unwrap().title, "Mijn titel");
}

/// An end for a run that is not stored, or one that cannot be, and a step for a thread that
/// is not, change nothing: neither the messages nor the title nor any run.
async fn a_refused_end_or_step_writes_nothing(backend: Backend) {
    let store = backend.open().await;
    let messages = conversation();
    let mut request = turn("t1", "koen", Some(&messages[0]));
    request.run_id = Some("r1");
    begun(store.begin_turn(&request).await.unwrap());
    let before = store.thread("t1").await.unwrap();

    assert!(matches!(
        store
            .append_and_finish_run("t1", &messages[1..4], "nope", RunStatus::Finished, None)
            .await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store
            .append_and_finish_run("t1", &messages[1..4], "r1", RunStatus::Running, None)
            .await,
        Err(StoreError::Conflict(_))
    ));
    assert!(matches!(
        store
            .append_and_finish_run("nope", &messages[1..4], "r1", RunStatus::Finished, None)
            .await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store
            .append_step(
                "nope",
                &messages[1..3],
                Some("Trattoria Finta Fiore, Amsterdam")
            )
            .await,
        Err(StoreError::NotFound(_))
    ));
    assert_eq!(store.messages("t1").await.unwrap(), messages[..1]);
    let after = store.thread("t1").await.unwrap();
    assert_eq!(
        (after.title, after.message_count),
        (before.title, before.message_count)
    );
    assert_eq!(store.run("r1").await.unwrap().status, RunStatus::Running);
    assert!(matches!(
        store.thread("nope").await,
        Err(StoreError::NotFound(_))
    ));
    // A held message in the batch takes the careful path, which refuses an unknown run too.
    assert!(matches!(
        store
            .append_and_finish_run("t1", &messages[..2], "nope", RunStatus::Finished, None)
            .await,
        Err(StoreError::NotFound(_))
    ));
    assert_eq!(store.messages("t1").await.unwrap(), messages[..1]);
    assert_eq!(store.run("r1").await.unwrap().status, RunStatus::Running);
}
