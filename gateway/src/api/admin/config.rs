//! System configuration: basic information, customer service and the finance settings.

use axum::extract::State;
use engine::types::{Area, Settings};
use engine::AdminAction;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::api::auth::{Admin, Body};
use crate::api::dto::{self, LinkKind};
use crate::api::{
    ok, Answer, ApiError, ApiResult, AppState, Envelope, ErrorEnvelope, IdempotencyKey,
};

use super::act;
use super::rules::rate;

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(basic_info)).routes(routes!(config, update_config))
}

/// Public site information (spec: `GET /admin/system/basic-info`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BasicInfo {
    /// Logo URL.
    pub logo: String,
    /// Site name.
    pub site_name: String,
    /// The site's description, for search engines and link previews.
    pub site_description: String,
    /// E-mail code sign-in offered.
    pub email_login: bool,
    /// Wallet sign-in offered.
    pub wallet_login: bool,
    /// Customer service.
    pub customer_service: CustomerService,
    /// An invite code is required to register.
    pub invite_code_required: bool,
}

/// `{enabled, serviceLink, hours}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerService {
    /// Whether the customer-service link is shown to users.
    pub enabled: bool,
    /// Link opened in a new tab.
    pub service_link: String,
    /// Working hours as users see them (`09:00-21:00`).
    pub hours: String,
}

/// Site name, logo, sign-in options, customer service (public).
#[utoipa::path(get, path = "/api/admin/system/basic-info", tag = "system",
    responses((status = 200, body = Envelope<BasicInfo>)))]
async fn basic_info(State(state): State<AppState>) -> Answer<BasicInfo> {
    let info = state
        .query(|e| {
            let s = e.settings();
            BasicInfo {
                logo: s.logo.clone(),
                site_name: s.site_name.clone(),
                site_description: s.site_description.clone(),
                email_login: s.email_login,
                wallet_login: s.wallet_login,
                customer_service: CustomerService {
                    enabled: s.customer_service_enabled,
                    service_link: s.customer_service_link.clone(),
                    hours: s.customer_service_hours.clone(),
                },
                invite_code_required: s.invite_code_required,
            }
        })
        .await?;
    ok(info)
}

/// The whole system configuration.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct SystemConfig {
    /// Site information.
    pub basic: BasicConfig,
    /// Money limits and fees.
    pub finance: FinanceConfig,
}

/// Site information.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct BasicConfig {
    /// Site name.
    #[schema(max_length = 64)]
    pub site_name: String,
    /// Logo URL.
    #[schema(max_length = 500)]
    pub logo: String,
    /// The site's description, for search engines and link previews.
    #[schema(max_length = 500)]
    pub site_description: String,
    /// E-mail code sign-in.
    pub email_login: bool,
    /// Wallet sign-in.
    pub wallet_login: bool,
    /// Customer service shown.
    pub customer_service_enabled: bool,
    /// Customer service link.
    #[schema(max_length = 500)]
    pub customer_service_link: String,
    /// Customer service's working hours as users see them (`09:00-21:00`).
    #[schema(max_length = 100)]
    pub customer_service_hours: String,
    /// Invite code required at sign-up.
    pub invite_code_required: bool,
    /// The site-package provider's chat link, in the back-office's sidebar.
    #[schema(max_length = 500)]
    pub provider_link: String,
}

/// Money settings (amounts and rates as strings).
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct FinanceConfig {
    /// Withdrawal fee rate (0-0.5).
    #[schema(pattern = "^[0-9](\\.[0-9]{1,4})?$")]
    pub withdraw_fee_rate: String,
    /// Fixed withdrawal fee.
    #[schema(pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub withdraw_fee_fixed: String,
    /// Smallest withdrawal.
    #[schema(pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub withdraw_min: String,
    /// Largest withdrawal.
    #[schema(pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub withdraw_max: String,
    /// Smallest deposit.
    #[schema(pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub deposit_min: String,
    /// Largest deposit.
    #[schema(pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub deposit_max: String,
    /// Open contracts per user at most.
    pub open_contracts_per_user_max: u32,
    /// Referral reward rates for generations 1-3.
    pub reward_rates: Vec<String>,
    /// Demo wallet starting balance.
    #[schema(pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub demo_balance: String,
}

fn config_of(s: &Settings) -> SystemConfig {
    SystemConfig {
        basic: BasicConfig {
            site_name: s.site_name.clone(),
            logo: s.logo.clone(),
            site_description: s.site_description.clone(),
            email_login: s.email_login,
            wallet_login: s.wallet_login,
            customer_service_enabled: s.customer_service_enabled,
            customer_service_link: s.customer_service_link.clone(),
            customer_service_hours: s.customer_service_hours.clone(),
            invite_code_required: s.invite_code_required,
            provider_link: s.provider_link.clone(),
        },
        finance: FinanceConfig {
            withdraw_fee_rate: s.withdraw_fee_rate.to_string(),
            withdraw_fee_fixed: s.withdraw_fee_fixed.to_string(),
            withdraw_min: s.withdraw_min.to_string(),
            withdraw_max: s.withdraw_max.to_string(),
            deposit_min: s.deposit_min.to_string(),
            deposit_max: s.deposit_max.to_string(),
            open_contracts_per_user_max: s.open_contracts_per_user_max,
            reward_rates: s.reward_rates.iter().map(Decimal::to_string).collect(),
            demo_balance: s.demo_balance.to_string(),
        },
    }
}

fn money(field: &'static str, value: &str) -> ApiResult<Decimal> {
    dto::plain_decimal(value, 10, 2).ok_or_else(|| ApiError::invalid(field, "settings"))
}

/// System configuration.
#[utoipa::path(get, path = "/api/admin/system/config", tag = "admin", security(("admin" = [])),
    responses((status = 200, body = Envelope<SystemConfig>), (status = 401, body = ErrorEnvelope)))]
async fn config(State(state): State<AppState>, admin: Admin) -> Answer<SystemConfig> {
    admin.reads(Area::Config)?;
    ok(state.query(|e| config_of(e.settings())).await?)
}

/// Replace the system configuration.
#[utoipa::path(put, path = "/api/admin/system/config", tag = "admin", security(("admin" = [])), request_body = SystemConfig,
    responses((status = 200, body = Envelope<SystemConfig>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
async fn update_config(
    State(state): State<AppState>,
    key: IdempotencyKey,
    admin: Admin,
    Body(body): Body<SystemConfig>,
) -> Answer<SystemConfig> {
    admin.writes(Area::Config)?;
    let b = body.basic;
    let f = body.finance;
    let settings = Settings {
        site_name: dto::text("siteName", &b.site_name, dto::FIELD_CHARS_MAX, "settings")?,
        logo: dto::optional_link("logo", &b.logo, dto::TEXT_CHARS_MAX, LinkKind::Image)?,
        site_description: dto::optional_text(
            "siteDescription",
            &b.site_description,
            dto::TEXT_CHARS_MAX,
        )?,
        email_login: b.email_login,
        wallet_login: b.wallet_login,
        customer_service_enabled: b.customer_service_enabled,
        customer_service_link: dto::optional_link(
            "customerServiceLink",
            &b.customer_service_link,
            dto::TEXT_CHARS_MAX,
            LinkKind::Contact,
        )?,
        invite_code_required: b.invite_code_required,
        withdraw_fee_rate: rate("withdrawFeeRate", &f.withdraw_fee_rate)?,
        withdraw_fee_fixed: money("withdrawFeeFixed", &f.withdraw_fee_fixed)?,
        withdraw_min: money("withdrawMin", &f.withdraw_min)?,
        withdraw_max: money("withdrawMax", &f.withdraw_max)?,
        deposit_min: money("depositMin", &f.deposit_min)?,
        deposit_max: money("depositMax", &f.deposit_max)?,
        open_contracts_per_user_max: f.open_contracts_per_user_max,
        reward_rates: f
            .reward_rates
            .iter()
            .map(|r| rate("rewardRates", r))
            .collect::<ApiResult<_>>()?,
        demo_balance: money("demoBalance", &f.demo_balance)?,
        customer_service_hours: dto::optional_text(
            "customerServiceHours",
            &b.customer_service_hours,
            dto::FIELD_CHARS_MAX,
        )?,
        provider_link: dto::optional_link(
            "providerLink",
            &b.provider_link,
            dto::TEXT_CHARS_MAX,
            LinkKind::Web,
        )?,
    };
    act(&state, &admin, key, AdminAction::UpdateSettings(Box::new(settings))).await?;
    ok(state.query(|e| config_of(e.settings())).await?)
}
