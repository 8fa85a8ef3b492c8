//! One JSON POST (or GET) over plain http, what the executor sends the orchestrator and what the
//! orchestrator sends its model: ureq, which blocks, run on tokio's blocking pool under the
//! agent's global deadline.

use std::time::Duration;

/// An HTTP client whose every call ends within `deadline`; a status is an answer, not an error.
pub(crate) fn client(deadline: Duration) -> ureq::Agent {
    ureq::Agent::config_builder().timeout_global(Some(deadline)).http_status_as_error(false).build().into()
}

/// POSTs `body` (JSON) to `url`, with `bearer` as the Authorization token if given and
/// `headers` besides; the answer's status and text, or why there was none.
pub(crate) async fn post_json(
    client: &ureq::Agent,
    url: String,
    bearer: Option<&str>,
    headers: &[(&'static str, String)],
    body: String,
) -> Result<(u16, String), String> {
    send(client, url, bearer, headers, Some(body)).await
}

/// GETs `url`, as [`post_json`] POSTs.
pub(crate) async fn get_json(
    client: &ureq::Agent,
    url: String,
    bearer: Option<&str>,
    headers: &[(&'static str, String)],
) -> Result<(u16, String), String> {
    send(client, url, bearer, headers, None).await
}

/// A POST of `body`, or a GET without one.
async fn send(
    client: &ureq::Agent,
    url: String,
    bearer: Option<&str>,
    headers: &[(&'static str, String)],
    body: Option<String>,
) -> Result<(u16, String), String> {
    let client = client.clone();
    let mut headers = headers.to_vec();
    if let Some(token) = bearer {
        headers.push(("Authorization", format!("Bearer {token}")));
    }
    tokio::task::spawn_blocking(move || {
        let sent = match &body {
            Some(body) => {
                let request = client.post(&url).header("Content-Type", "application/json");
                headers.iter().fold(request, |r, (name, value)| r.header(*name, value)).send(body)
            }
            None => headers.iter().fold(client.get(&url), |r, (name, value)| r.header(*name, value)).call(),
        };
        let mut response = sent.map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().map_err(|e| e.to_string())?;
        Ok((status, text))
    })
    .await
    .map_err(|e| e.to_string())?
}
