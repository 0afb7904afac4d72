//! Uploads (decisions §6): a size cap, the image type read from the content, a generated
//! name, and access control: avatars are public, receipts are for their owner and admins.

use axum::extract::multipart::MultipartRejection;
use axum::extract::{DefaultBodyLimit, Multipart, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use engine::types::Area;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::{Admin, PathValue, User};
use super::users::UserView;
use super::{ok, Answer, ApiError, ApiResult, AppState, Envelope, ErrorEnvelope, IdempotencyKey};
use crate::http::{UPLOAD_BYTES_MAX, UPLOAD_REQUEST_BYTES_MAX};
use crate::readmodel::{UploadKind, UploadRow};

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(upload))
        .routes(routes!(avatar))
        .routes(routes!(logo))
        .routes(routes!(download))
        .layer(DefaultBodyLimit::max(UPLOAD_REQUEST_BYTES_MAX))
}

/// A stored upload.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Uploaded {
    /// Generated name (pass as `receipt`).
    pub name: String,
    /// Where it can be fetched (with a token).
    pub url: String,
    /// Detected type.
    pub content_type: String,
    /// Stored size in bytes.
    pub size: usize,
}

const IMAGE_TYPES: [(&str, &str); 4] =
    [("image/png", "png"), ("image/jpeg", "jpg"), ("image/gif", "gif"), ("image/webp", "webp")];

/// The file is over the size limit (not the generic oversized-request message).
fn too_large() -> ApiError {
    ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "UPLOAD_TOO_LARGE")
        .arg("megabytes", UPLOAD_BYTES_MAX / (1024 * 1024))
}

/// Reads the `file` field, checks size and type, stores it under a generated name.
async fn store(
    state: &AppState,
    owner: u32,
    kind: UploadKind,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<Uploaded> {
    // Not a multipart body (no boundary, another content type): the envelope, not axum's text.
    let mut multipart = multipart.map_err(|_| ApiError::invalid("file", "file"))?;
    state.throttles.upload_user.take(&owner.to_string())?;
    let mut data = None;
    while let Some(field) = multipart.next_field().await.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            too_large()
        } else {
            ApiError::invalid("file", "file")
        }
    })? {
        if field.name() == Some("file") {
            let bytes = field.bytes().await.map_err(|_| too_large())?;
            data = Some(bytes);
            break;
        }
    }
    let bytes = data.ok_or_else(|| ApiError::invalid("file", "file"))?;
    if bytes.is_empty() {
        return Err(ApiError::invalid("file", "file"));
    }
    if bytes.len() > UPLOAD_BYTES_MAX {
        return Err(too_large());
    }
    let detected = infer::get(&bytes).map(|t| t.mime_type());
    let Some((mime, ext)) = IMAGE_TYPES.iter().find(|(m, _)| Some(*m) == detected) else {
        return Err(ApiError::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE"));
    };
    let size = bytes.len() as u64;
    let (files_max, bytes_max) = (state.upload_quota.files, state.upload_quota.bytes);
    if !state.readmodel.reserve_upload(owner, size, files_max, bytes_max)? {
        return Err(ApiError::new(StatusCode::CONFLICT, "UPLOAD_QUOTA_EXCEEDED")
            .arg("files", files_max)
            .arg("megabytes", bytes_max / (1024 * 1024)));
    }
    let name = format!("{}.{ext}", hex::encode(rand::random::<[u8; 16]>()));
    if let Err(error) = tokio::fs::write(state.uploads_dir.join(&name), &bytes).await {
        state.readmodel.release_upload(owner, size)?;
        return Err(ApiError::internal(error));
    }
    let row = UploadRow { owner, kind, content_type: (*mime).into(), deposit: None };
    state.readmodel.put_upload(&name, &row)?;
    Ok(Uploaded {
        url: format!("/api/uploads/{name}"),
        name,
        content_type: (*mime).into(),
        size: bytes.len(),
    })
}

/// Upload a receipt image (multipart field `file`; PNG, JPEG, GIF or WebP, at most 5 MiB).
#[utoipa::path(post, path = "/api/upload", tag = "uploads", security(("user" = [])),
    request_body(content_type = "multipart/form-data", description = "field `file`"),
    responses((status = 200, body = Envelope<Uploaded>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 409, description = "UPLOAD_QUOTA_EXCEEDED", body = ErrorEnvelope), (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 429, body = ErrorEnvelope)))]
async fn upload(
    State(state): State<AppState>,
    user: User,
    multipart: Result<Multipart, MultipartRejection>,
) -> Answer<Uploaded> {
    ok(store(&state, user.id.into(), UploadKind::Receipt, multipart).await?)
}

/// Upload and set the avatar (multipart field `file`).
#[utoipa::path(post, path = "/api/user/avatar", tag = "account", security(("user" = [])),
    request_body(content_type = "multipart/form-data", description = "field `file`"),
    responses((status = 200, body = Envelope<UserView>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 409, description = "UPLOAD_QUOTA_EXCEEDED", body = ErrorEnvelope), (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 429, body = ErrorEnvelope)))]
async fn avatar(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    multipart: Result<Multipart, MultipartRejection>,
) -> Answer<UserView> {
    let stored = store(&state, user.id.into(), UploadKind::Avatar, multipart).await?;
    ok(super::users::set_avatar(&state, key, user.id, stored.url).await?)
}

/// Uploads of the site itself (the logo) are owned by this id, which no user has.
const SITE_OWNER: u32 = 0;

/// Upload a logo for the site (multipart field `file`); system config's `logo` then takes the
/// answer's `url`. Public, like avatars.
#[utoipa::path(post, path = "/api/admin/system/logo", tag = "admin", security(("admin" = [])),
    request_body(content_type = "multipart/form-data", description = "field `file`"),
    responses((status = 200, body = Envelope<Uploaded>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 409, description = "UPLOAD_QUOTA_EXCEEDED", body = ErrorEnvelope), (status = 413, body = ErrorEnvelope), (status = 415, body = ErrorEnvelope), (status = 429, body = ErrorEnvelope)))]
async fn logo(
    State(state): State<AppState>,
    admin: Admin,
    multipart: Result<Multipart, MultipartRejection>,
) -> Answer<Uploaded> {
    admin.writes(Area::Config)?;
    ok(store(&state, SITE_OWNER, UploadKind::Logo, multipart).await?)
}

/// Fetch an upload: avatars and the logo for anyone; receipts for their owner or an admin
/// token.
#[utoipa::path(get, path = "/api/uploads/{name}", tag = "uploads",
    params(("name" = String, Path, description = "Generated name")),
    responses((status = 200, description = "The image", content_type = "image/*"), (status = 401, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
async fn download(
    State(state): State<AppState>,
    PathValue(name): PathValue<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let valid = name.len() <= 40 && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.');
    let row = if valid { state.readmodel.upload(&name)? } else { None };
    let row = row.ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "UPLOAD_NOT_FOUND"))?;
    if row.kind == UploadKind::Receipt {
        let token = crate::tokens::bearer(&headers).ok_or_else(ApiError::unauthorized)?;
        let allowed = state.tokens.check(token, "admin").is_some()
            || state.tokens.check(token, "user").is_some_and(|c| c.sub == row.owner);
        if !allowed {
            return Err(ApiError::new(StatusCode::NOT_FOUND, "UPLOAD_NOT_FOUND"));
        }
    }
    let bytes = tokio::fs::read(state.uploads_dir.join(&name))
        .await
        .map_err(|_| ApiError::new(StatusCode::NOT_FOUND, "UPLOAD_NOT_FOUND"))?;
    Ok((
        [
            (header::CONTENT_TYPE, row.content_type),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".into()),
        ],
        bytes,
    )
        .into_response())
}
