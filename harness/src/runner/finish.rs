//! The end of a run: the summary on the terminal, the reports written, the closing line CI
//! reads and the run's verdict.

use super::RunVerdict;
use crate::report;
use crate::run_context::{RunContext, TerminalOutput};
use crate::summary::{self, ScenarioResult};
use crate::world::NavWorld;
use std::path::Path;

/// The report folder, and its JUnit XML and Cucumber JSON files (what CI systems and the
/// Cucumber tooling read; written when the run ends), emptied: a folder the run cannot write to
/// stops it before it starts.
pub(super) fn open_reports(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::File::create(dir.join("junit.xml"))?;
    std::fs::File::create(dir.join("cucumber.json"))?;
    Ok(())
}

/// Writes `junit.xml` and `cucumber.json`; the gate's known deviations are skipped in JUnit.
fn write_machine_reports(run: &RunContext, results: &[ScenarioResult], title: &str) {
    let junit = report::render_junit(title, results, &run.steps.parse_failures(), &run.mode.expected);
    for (file, text) in [("junit.xml", junit), ("cucumber.json", report::render_cucumber_json(results))] {
        let path = run.report_dir.join(file);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("navguard: cannot write {}: {e}", path.display());
        }
    }
}

/// Prints the summary, writes the reports and says how the run went.
pub(super) async fn finish(
    run: &RunContext,
    writer: &impl cucumber::writer::Stats<NavWorld>,
    results: &[ScenarioResult],
) -> RunVerdict {
    let output = run.mode.output;
    let steps_shown = output == TerminalOutput::Steps;
    // Cucumber's own output names the files that did not parse with the steps; else here.
    if !steps_shown {
        summary::print_parse_failures(&run.steps.parse_failures());
    }
    summary::print_failures(results, &run.mode.expected, steps_shown);
    summary::print_not_applicable(results);
    let counts = summary::Counts::of(results);
    let (passed, failed) = (counts.passed, counts.failed);
    let metrics = crate::gate::measure(results, &Default::default());
    // The gate prints the metrics of all its runs at its end, not each run's.
    let per_run = !matches!(output, TerminalOutput::Gate { .. });
    if per_run && !results.is_empty() {
        summary::print_per_feature(results);
        println!("metrics (this run; `navguard gate` judges them):\n{}", metrics.lines());
    }
    let parse_errors = writer.parsing_errors();
    let browsers = run.started_browsers();
    if let Some(browser) = browsers.first() {
        let starts: Vec<String> = browsers.iter().map(|b| b.start_time().as_millis().to_string()).collect();
        match run.session_count() {
            1 => println!("browser start: {} ms", starts.join(", ")),
            n => println!("browser start: {} ms ({n} sessions)", starts.join(", ")),
        }
        if !browser.unsupported_events().is_empty() {
            println!("the browser does not send: {}", browser.unsupported_events().join(", "));
        }
    }
    run.shutdown().await;
    let html = run.report_dir.join("report.html");
    let title = format!("navguard report ({})", run.browser_kind());
    if let Err(e) = std::fs::write(&html, report::render(results, &metrics, &run.report_dir, &title)) {
        eprintln!("navguard: cannot write {}: {e}", html.display());
    }
    write_machine_reports(run, results, &title);
    println!(
        "reports: {}, {} and {}",
        html.display(),
        run.report_dir.join("junit.xml").display(),
        run.report_dir.join("cucumber.json").display()
    );
    if parse_errors > 0 {
        println!("{parse_errors} feature file(s) did not parse");
    }
    // The plain closing line CI reads.
    match counts.not_applicable {
        0 => println!("features: {passed} passed, {} failed", failed + parse_errors),
        n => println!("features: {passed} passed, {} failed, {n} not applicable", failed + parse_errors),
    }
    if results.is_empty() && parse_errors == 0 {
        println!("navguard: no scenario ran: the input holds no feature file, or the filters matched nothing");
        return RunVerdict::NothingRan;
    }
    // Judged from the results, not from cucumber's failed steps: the step that found a
    // scenario not applicable failed it in cucumber's eyes.
    let clean = failed == 0 && parse_errors == 0 && writer.hook_errors() == 0;
    if clean { RunVerdict::Passed } else { RunVerdict::Failed }
}
