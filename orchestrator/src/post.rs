//! One JSON POST over plain http, what the executor sends the orchestrator and what the
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
    let client = client.clone();
    let authorization = bearer.map(|token| format!("Bearer {token}"));
    let headers = headers.to_vec();
    tokio::task::spawn_blocking(move || {
        let mut request = client.post(&url).header("Content-Type", "application/json");
        if let Some(authorization) = &authorization {
            request = request.header("Authorization", authorization);
        }
        for (name, value) in &headers {
            request = request.header(*name, value);
        }
        let mut response = request.send(&body).map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().map_err(|e| e.to_string())?;
        Ok((status, text))
    })
    .await
    .map_err(|e| e.to_string())?
}
