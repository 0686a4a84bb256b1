use leptos::prelude::*;

use super::photo_link::PhotoLink;
use crate::protocol::hap_terms;
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;
use crate::ui::state::FormSummary;

/// The generated inspection report with its download links and, for the HAP form, each
/// section with its status and how much of the form was answered (what the inspector may
/// have forgotten to assess shows as "Niet beoordeeld").
#[component]
pub fn ReportCard(
    url: String,
    report_id: Option<String>,
    form: Option<FormSummary>,
) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let id_line = report_id.clone().map(|id| {
        view! { <p class="truncate text-sm text-slate-700 dark:text-slate-300">{id}</p> }
    });
    let mail = report_id
        .clone()
        .map(|id| view! { <crate::ui::components::report_mail::ReportMail report_id=id /> });
    let id_spoken = report_id.map(|id| view! { <span class="sr-only">{format!(" {id}")}</span> });
    let json_link = form.as_ref().and_then(|f| f.json_url.clone()).map(|json| {
        view! {
            <a
                href=json
                download=""
                class="rounded-lg border border-emerald-800 px-3 py-2 text-sm font-medium text-emerald-900 hover:bg-emerald-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 dark:border-emerald-300 dark:text-emerald-200 dark:hover:bg-emerald-900"
            >
                {prefs.text(Key::DownloadJson)}
            </a>
        }
    });
    let evidence = form
        .as_ref()
        .map(|f| f.evidence.clone())
        .unwrap_or_default();
    // Each finding's photos as thumbnails (issue 37), each opening at full size.
    let photos = (!evidence.is_empty()).then(|| {
        let rows = evidence
            .into_iter()
            .map(|(finding, urls)| {
                let thumbs = urls
                    .into_iter()
                    .map(|url| {
                        view! {
                            <PhotoLink
                                url
                                class="h-16 w-16 rounded-md border border-emerald-300 object-cover sm:h-20 sm:w-20 dark:border-emerald-700"
                            />
                        }
                    })
                    .collect_view();
                view! {
                    <li>
                        <p class="truncate text-sm">{finding}</p>
                        <ul class="mt-1 flex flex-wrap gap-2">{thumbs}</ul>
                    </li>
                }
            })
            .collect_view();
        view! {
            <div class="basis-full" data-testid="report-photos">
                <p class="text-sm font-semibold">{prefs.text(Key::FindingPhotos)}</p>
                <ul class="mt-1 space-y-2">{rows}</ul>
            </div>
        }
    });
    let summary = form.map(|f| {
        // The Dutch decimal comma in both languages: the form is Dutch.
        let completion = f.completion.map(|c| {
            view! {
                <p class="text-sm">
                    {prefs.text(Key::FormCompletion)}
                    {format!(": {} %", c.to_string().replace('.', ","))}
                </p>
            }
        });
        let rows = f
            .sections
            .into_iter()
            .map(|(title, status)| {
                let tone = match status.as_str() {
                    "Nee" => "text-red-800 dark:text-red-300",
                    "Ja" => "text-emerald-800 dark:text-emerald-300",
                    _ => "text-slate-700 dark:text-slate-300",
                };
                // The official Dutch terms, in English as the table words them.
                let lang = prefs.lang;
                view! {
                    <li class="flex justify-between gap-3">
                        <span>{move || hap_terms::shown(&title, lang.get()).to_owned()}</span>
                        <span class=format!(
                            "font-semibold {tone}",
                        )>{move || hap_terms::shown(&status, lang.get()).to_owned()}</span>
                    </li>
                }
            })
            .collect_view();
        view! {
            <div class="basis-full">
                {completion}
                <ul class="mt-1 space-y-0.5 text-sm">{rows}</ul>
            </div>
        }
    });
    view! {
        <div class="flex flex-wrap items-center gap-3 rounded-lg border border-emerald-300 bg-emerald-50 p-3 dark:border-emerald-700 dark:bg-emerald-950">
            <span
                aria-hidden="true"
                class="rounded border-2 border-emerald-800 px-1.5 py-2 text-xs font-bold text-emerald-800 dark:border-emerald-300 dark:text-emerald-300"
            >
                "PDF"
            </span>
            <div class="min-w-0 flex-1">
                <p class="font-semibold">{prefs.text(Key::ReportReady)}</p>
                {id_line}
            </div>
            <a
                href=url
                download=""
                class="rounded-lg bg-emerald-800 px-3 py-2 text-sm font-medium text-white hover:bg-emerald-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600"
            >
                {prefs.text(Key::DownloadPdf)}
                {id_spoken}
            </a>
            {json_link}
            {summary}
            {photos}
            {mail}
        </div>
    }
}
