//! Log lines: tracing's usual text format, after a prefix of the process's own (a cluster
//! member's `node=N`), so that the lines of members sharing a terminal can be told apart.

use std::fmt;

use tracing::{Event, Subscriber};
use tracing_subscriber::fmt::format::{self, Format, Full, Writer};
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

/// The default text format with `prefix` written first on every line.
#[derive(Debug)]
pub struct Prefixed {
    /// Written before each line (may be empty).
    prefix: String,
    /// Everything else, as tracing writes it.
    inner: Format<Full>,
}

impl Prefixed {
    /// Lines that start with `prefix`; `ansi` as the writer's (colours on a terminal only).
    pub fn new(prefix: String, ansi: bool) -> Prefixed {
        Prefixed { prefix, inner: format::format().with_ansi(ansi) }
    }
}

impl<S, N> FormatEvent<S, N> for Prefixed
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        writer.write_str(&self.prefix)?;
        self.inner.format_event(ctx, writer, event)
    }
}
