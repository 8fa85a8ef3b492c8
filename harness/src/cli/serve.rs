//! `navguard serve`: the orchestrator, on loopback.

use navguard_orchestrator::permissions::PermissionMode;
use navguard_orchestrator::redact::Redactor;
use navguard_orchestrator::risk::RiskPolicy;
use std::path::PathBuf;
use std::process::ExitCode;

// What `navguard serve` is given.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Where the store and the audit live; a restart on the same folder loses nothing that
    /// was answered.
    #[arg(long, value_name = "dir")]
    pub data_dir: PathBuf,
    /// Where to listen: a loopback address only.
    #[arg(long, value_name = "addr", default_value = "127.0.0.1:0")]
    pub addr: std::net::SocketAddr,
    /// An OpenAI-compatible API (plain http: a local model server, e.g.
    /// http://127.0.0.1:11434/v1) whose model plans the tasks started without a plan; its
    /// key, if it needs one, comes from NAVGUARD_MODEL_KEY.
    #[arg(long, value_name = "url", requires = "model")]
    pub model_url: Option<String>,
    /// The model's name at --model-url.
    #[arg(long, value_name = "name", requires = "model_url")]
    pub model: Option<String>,
    /// The words that make a click high-risk when a control's accessible name says one,
    /// comma-separated; they replace the default list (buy, order, pay, purchase, delete,
    /// remove, send, publish, post, checkout, transfer).
    #[arg(long, value_name = "words", value_delimiter = ',')]
    pub risk_words: Option<Vec<String>>,
    /// A file of regular expressions, one a line (blank lines and lines that begin with # are
    /// skipped): what they match is redacted in the audit and in what the model is given, on
    /// top of e-mail addresses, phone numbers and passwords.
    #[arg(long, value_name = "file")]
    pub redact: Option<PathBuf>,
    /// `ask`: an action that changes a page (click, type, press_key, handle_dialog) runs only on
    /// an origin the user granted (POST /api/agent/permissions, or the console); the task waits
    /// for their word on any other. Grants are kept in the data folder. `open`: every site.
    #[arg(long, value_name = "ask|open", default_value = "open")]
    pub permissions: PermissionMode,
    /// A folder of skills: every SKILL.md under it (front matter name, description, and
    /// optionally sites, allowed-tools, risk-words; the body is the procedure) is indexed at
    /// start for /api/skills/search, the /skills page and the model's planning. A file whose
    /// front matter is broken is named with its line and left out.
    #[arg(long, value_name = "dir")]
    pub skills: Option<PathBuf>,
}

/// Serves until stopped; a bad argument or environment exits 2, any other failure 1.
pub async fn serve(args: ServeArgs) -> ExitCode {
    let ServeArgs { data_dir, addr, model_url, model, risk_words, redact, permissions, skills } = args;
    let redactor = match redact.as_deref().map(Redactor::from_file).transpose() {
        Ok(redactor) => redactor.unwrap_or_default(),
        Err(e) => {
            eprintln!("navguard serve: {e}");
            return ExitCode::from(2);
        }
    };
    let secret = secret();
    let model = model_url.zip(model).map(|(base, model)| {
        use navguard_orchestrator::planner::HttpModel;
        let key = std::env::var("NAVGUARD_MODEL_KEY").ok().filter(|k| !k.is_empty());
        HttpModel::new(base, model, key, HttpModel::DEADLINE)
    });
    let risk = risk_policy(risk_words);
    let config =
        navguard_orchestrator::ServeConfig { data_dir, addr, secret, model, risk, redactor, permissions, skills };
    match navguard_orchestrator::serve(config).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("navguard serve: {e}");
            ExitCode::from(if e.is_usage() { 2 } else { 1 })
        }
    }
}

/// The bearer secret both `serve` and `executor` take from `NAVGUARD_SECRET` (empty is none).
pub(super) fn secret() -> Option<String> {
    std::env::var("NAVGUARD_SECRET").ok().filter(|s| !s.is_empty())
}

/// `--risk-words`, or the default list.
pub(super) fn risk_policy(words: Option<Vec<String>>) -> RiskPolicy {
    words.map(RiskPolicy::with_words).unwrap_or_default()
}
