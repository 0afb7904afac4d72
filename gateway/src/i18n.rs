//! Messages in the caller's language, from the same catalogues in `locales/` that the web
//! app uses (decisions §7 and §10). The catalogues are embedded at build time.

use std::collections::HashMap;

use axum::http::HeaderMap;

/// The languages offered, default first.
pub use engine::constants::LANGUAGES;

const SOURCES: [&str; 8] = [
    include_str!("../../locales/en-US.json"),
    include_str!("../../locales/es-ES.json"),
    include_str!("../../locales/pt-PT.json"),
    include_str!("../../locales/ar-AR.json"),
    include_str!("../../locales/de-DE.json"),
    include_str!("../../locales/ru-RU.json"),
    include_str!("../../locales/fr-FR.json"),
    include_str!("../../locales/hi-IN.json"),
];

/// Flattened catalogues: `api.error.CODE` -> text, one map per language.
#[derive(Debug)]
pub struct Catalogues {
    /// Indexed like [`LANGUAGES`].
    maps: Vec<HashMap<String, String>>,
}

fn flatten(prefix: &str, value: &serde_json::Value, out: &mut HashMap<String, String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, value) in map {
                let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
                flatten(&path, value, out);
            }
        }
        serde_json::Value::String(text) => {
            out.insert(prefix.to_owned(), text.clone());
        }
        _ => {}
    }
}

impl Catalogues {
    /// Parses the embedded catalogues. They are checked by tests, so a failure is a bug.
    pub fn load() -> Catalogues {
        let maps = SOURCES
            .iter()
            .map(|source| {
                let value: serde_json::Value =
                    serde_json::from_str(source).expect("locale catalogues are valid JSON");
                let mut map = HashMap::new();
                flatten("", &value, &mut map);
                map
            })
            .collect();
        Catalogues { maps }
    }

    /// All keys of a language, for tests.
    pub fn keys(&self, language: usize) -> Vec<&str> {
        let mut keys: Vec<&str> = self.maps[language].keys().map(String::as_str).collect();
        keys.sort_unstable();
        keys
    }

    /// The text of `key` in `language` (falling back to en-US, then the key itself), with
    /// `{{name}}` placeholders filled.
    pub fn text(&self, language: usize, key: &str, args: &[(&str, String)]) -> String {
        let template = self.maps[language]
            .get(key)
            .or_else(|| self.maps[0].get(key))
            .map_or(key, String::as_str);
        let mut text = template.to_owned();
        for (name, value) in args {
            text = text.replace(&format!("{{{{{name}}}}}"), value);
        }
        text
    }
}

/// The caller's language: the `language` (or `lang`, `x-language`) header, else
/// Accept-Language, else en-US. Matches full tags first, then the primary subtag.
pub fn language_of(headers: &HeaderMap) -> usize {
    let explicit = ["language", "lang", "x-language"]
        .iter()
        .find_map(|name| headers.get(*name).and_then(|v| v.to_str().ok()));
    if let Some(found) = explicit.and_then(match_tag) {
        return found;
    }
    let accept = headers.get("accept-language").and_then(|v| v.to_str().ok()).unwrap_or("");
    accept
        .split(',')
        .map(|part| part.split(';').next().unwrap_or("").trim())
        .find_map(match_tag)
        .unwrap_or(0)
}

/// The index of a language tag (full tag first, then the primary subtag).
pub fn match_tag(tag: &str) -> Option<usize> {
    let tag = tag.trim();
    if tag.is_empty() {
        return None;
    }
    if let Some(exact) = LANGUAGES.iter().position(|l| l.eq_ignore_ascii_case(tag)) {
        return Some(exact);
    }
    let primary = tag.split(['-', '_']).next()?.to_ascii_lowercase();
    LANGUAGES.iter().position(|l| l[..2] == primary)
}

/// An amount with two decimals as the web app's `formatMoney` shows it (`Intl.NumberFormat`
/// of the language, Latin digits in Arabic too): ICU's data for grouping, separators and
/// signs, so "1,234.50", "1.234,50", "1 234,50" and "1,23,456.00" come from one call.
/// `signed` shows a plus on a positive amount.
pub fn format_money(language: usize, value: rust_decimal::Decimal, signed: bool) -> String {
    use icu_decimal::input::{Decimal, SignDisplay};
    use icu_decimal::DecimalFormatter;

    thread_local! {
        // Not `Sync`; cheap to keep one set per thread.
        static FORMATTERS: Vec<DecimalFormatter> = LANGUAGES
            .iter()
            .map(|tag| {
                let tag = if tag.starts_with("ar") { "ar-u-nu-latn" } else { tag };
                let locale = icu_locale_core::Locale::try_from_str(tag).expect("a valid tag");
                DecimalFormatter::try_new((&locale).into(), Default::default())
                    .expect("ICU's compiled data has every language of the catalogues")
            })
            .collect();
    }
    let text = value.round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointNearestEven);
    let mut decimal = Decimal::try_from_str(&text.to_string()).expect("a decimal's text parses");
    decimal.absolute.pad_end(-2);
    decimal.apply_sign_display(if signed { SignDisplay::ExceptZero } else { SignDisplay::Auto });
    FORMATTERS.with(|f| f[language.min(LANGUAGES.len() - 1)].format(&decimal).to_string())
}

#[cfg(test)]
mod money_tests {
    use super::*;
    use rust_decimal_macros::dec;

    fn at(tag: &str) -> usize {
        match_tag(tag).unwrap()
    }

    #[test]
    fn amounts_follow_each_languages_conventions() {
        assert_eq!(format_money(at("en-US"), dec!(1234.5), false), "1,234.50");
        assert_eq!(format_money(at("de-DE"), dec!(1234.5), false), "1.234,50");
        assert_eq!(format_money(at("hi-IN"), dec!(123456), false), "1,23,456.00");
        assert_eq!(format_money(at("fr-FR"), dec!(1234.5), false), "1\u{202f}234,50");
        assert_eq!(format_money(at("ar-AR"), dec!(1234.5), false), "1,234.50");
        assert_eq!(format_money(at("en-US"), dec!(12.345), true), "+12.34");
        assert_eq!(format_money(at("en-US"), dec!(-3), true), "-3.00");
        assert_eq!(format_money(at("en-US"), dec!(0), true), "0.00");
    }
}
