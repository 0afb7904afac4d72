//! Opening a replay file: plain or gzip, bounded in size and in line length, split into records.
//!
//! Everything streams: the decompressed text passes through [`Bounded`], which stops it past
//! [`ReplayLimits::file_bytes_max`] bytes or at a line longer than
//! [`ReplayLimits::line_bytes_max`], so a gzip bomb costs at most that much work and no memory
//! beyond the csv reader's buffer. The delimiter (`,`, `;` or tab) is the one the first line
//! uses most.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::Path;

use super::ReplayLimits;
use crate::source::SourceError;

/// Why [`Bounded`] stopped the stream; travels inside an `io::Error` through the csv reader.
#[derive(Debug)]
enum Overrun {
    /// More than the size bound once decompressed.
    TooLarge { line: u64, max: u64 },
    /// A line longer than the line bound.
    LineTooLong { line: u64, max: usize },
    /// The gzip stream is damaged or cut short.
    Damaged { line: u64, message: String },
}

impl std::fmt::Display for Overrun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Overrun::TooLarge { max, .. } => {
                write!(f, "the file is larger than {max} bytes once decompressed; split it")
            }
            Overrun::LineTooLong { max, .. } => {
                write!(f, "the line is longer than {max} bytes; is this a price file?")
            }
            Overrun::Damaged { message, .. } => write!(f, "the gzip stream is damaged: {message}"),
        }
    }
}

impl std::error::Error for Overrun {}

impl Overrun {
    fn line(&self) -> u64 {
        match self {
            Overrun::TooLarge { line, .. }
            | Overrun::LineTooLong { line, .. }
            | Overrun::Damaged { line, .. } => *line,
        }
    }
}

/// Passes bytes through while counting them and the lines; fails past the bounds.
struct Bounded<R> {
    /// The (decompressed) text.
    inner: R,
    /// Bytes passed so far.
    total: u64,
    /// Bytes since the last newline.
    line_bytes: usize,
    /// 1-based number of the line being read.
    line: u64,
    /// The bounds.
    limits: ReplayLimits,
    /// The inner reader decompresses gzip (its errors mean a damaged file).
    gzip: bool,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = match self.inner.read(buf) {
            Ok(n) => n,
            Err(e) if self.gzip && e.kind() != std::io::ErrorKind::Interrupted => {
                let overrun = Overrun::Damaged { line: self.line, message: e.to_string() };
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, overrun));
            }
            Err(e) => return Err(e),
        };
        for &byte in &buf[..n] {
            self.line_bytes += 1;
            if self.line_bytes > self.limits.line_bytes_max {
                let overrun =
                    Overrun::LineTooLong { line: self.line, max: self.limits.line_bytes_max };
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, overrun));
            }
            if byte == b'\n' {
                self.line += 1;
                self.line_bytes = 0;
            }
        }
        self.total += n as u64;
        if self.total > self.limits.file_bytes_max {
            let overrun = Overrun::TooLarge { line: self.line, max: self.limits.file_bytes_max };
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, overrun));
        }
        Ok(n)
    }
}

/// What the first bytes of a file say it is, when it is not text.
fn compressed_kind(head: &[u8]) -> Option<&'static str> {
    const KINDS: [(&[u8], &str); 6] = [
        (b"\xff\xfe", "UTF-16 text: save it as UTF-8"),
        (b"\xfe\xff", "UTF-16 text: save it as UTF-8"),
        (
            b"PK\x03\x04",
            "a zip archive (Binance's downloads are zips): unzip it, or gzip the CSV inside",
        ),
        (b"\xfd7zXZ\x00", "xz-compressed: only gzip is read"),
        (b"BZh", "bzip2-compressed: only gzip is read"),
        (b"\x28\xb5\x2f\xfd", "zstd-compressed: only gzip is read"),
    ];
    KINDS.iter().find(|(magic, _)| head.starts_with(magic)).map(|(_, what)| *what)
}

/// A file's records, with line numbers, in order; records read ahead for format detection are
/// handed out again first.
pub(crate) struct Records<'a> {
    /// The csv reader over the bounded text.
    csv: csv::Reader<Box<dyn Read + 'a>>,
    /// Records read ahead.
    ahead: VecDeque<(u64, csv::StringRecord)>,
    /// The file, for errors.
    path: &'a Path,
    /// Data records handed out (the row bound).
    count: usize,
    /// The row bound.
    rows_max: usize,
}

impl<'a> Records<'a> {
    /// Opens `reader` (gzip when it starts like gzip), finds its delimiter and starts reading.
    pub fn open(
        reader: impl Read + 'a,
        path: &'a Path,
        limits: ReplayLimits,
    ) -> Result<Records<'a>, SourceError> {
        let io = |source: std::io::Error| SourceError::Io { path: path.to_path_buf(), source };
        let mut raw = BufReader::new(reader);
        let head = raw.fill_buf().map_err(io)?;
        if let Some(what) = compressed_kind(head) {
            return Err(SourceError::BadRow {
                path: path.to_path_buf(),
                line: 1,
                reason: what.to_owned(),
            });
        }
        let gzip = head.starts_with(&[0x1f, 0x8b]);
        let text: Box<dyn Read + 'a> =
            if gzip { Box::new(flate2::read::MultiGzDecoder::new(raw)) } else { Box::new(raw) };
        let mut bounded =
            BufReader::new(Bounded { inner: text, total: 0, line_bytes: 0, line: 1, limits, gzip });
        let mut first_line = Vec::new();
        bounded.read_until(b'\n', &mut first_line).map_err(|e| stream_error(path, e))?;
        let delimiter = [b',', b';', b'\t']
            .into_iter()
            .rev()
            .max_by_key(|d| first_line.iter().filter(|b| *b == d).count())
            .unwrap_or(b',');
        let text: Box<dyn Read + 'a> = Box::new(Cursor::new(first_line).chain(bounded));
        let csv = csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .has_headers(false)
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(text);
        Ok(Records { csv, ahead: VecDeque::new(), path, count: 0, rows_max: limits.rows_max })
    }

    /// The next non-blank record from the file and its line.
    fn read_file(&mut self) -> Result<Option<(u64, csv::StringRecord)>, SourceError> {
        let mut record = csv::StringRecord::new();
        loop {
            if !self.csv.read_record(&mut record).map_err(|e| csv_error(self.path, e))? {
                return Ok(None);
            }
            // A line of spaces is a record of one empty field: blank, skipped.
            if record.len() == 1 && record[0].is_empty() {
                continue;
            }
            let line = record.position().map_or(0, csv::Position::line);
            return Ok(Some((line, record)));
        }
    }

    /// The next record (read ahead or from the file), not counted against the row bound.
    fn read(&mut self) -> Result<Option<(u64, csv::StringRecord)>, SourceError> {
        match self.ahead.pop_front() {
            Some(next) => Ok(Some(next)),
            None => self.read_file(),
        }
    }

    /// Up to `n` records from the start, kept to be handed out again.
    pub fn peek(&mut self, n: usize) -> Result<Vec<(u64, csv::StringRecord)>, SourceError> {
        while self.ahead.len() < n {
            match self.read_file()? {
                Some(next) => self.ahead.push_back(next),
                None => break,
            }
        }
        Ok(self.ahead.iter().take(n).cloned().collect())
    }

    /// Drops the next record (a header line).
    pub fn skip(&mut self) -> Result<(), SourceError> {
        self.read().map(drop)
    }

    /// The next data record and its line; refuses the file past the row bound.
    pub fn next_row(&mut self) -> Result<Option<(u64, csv::StringRecord)>, SourceError> {
        let Some((line, record)) = self.read()? else { return Ok(None) };
        self.count += 1;
        if self.count > self.rows_max {
            return Err(SourceError::BadRow {
                path: self.path.to_path_buf(),
                line,
                reason: format!("more than {} rows; split the file", self.rows_max),
            });
        }
        Ok(Some((line, record)))
    }
}

/// A read error from below the csv reader: a bound or a damaged gzip stream names its line.
fn stream_error(path: &Path, error: std::io::Error) -> SourceError {
    if let Some(overrun) = error.get_ref().and_then(|e| e.downcast_ref::<Overrun>()) {
        return SourceError::BadRow {
            path: path.to_path_buf(),
            line: overrun.line(),
            reason: overrun.to_string(),
        };
    }
    SourceError::Io { path: path.to_path_buf(), source: error }
}

/// A csv error as a line-numbered bad row where it has a position.
fn csv_error(path: &Path, error: csv::Error) -> SourceError {
    let position = error.position().map(csv::Position::line);
    match error.into_kind() {
        csv::ErrorKind::Io(e) => stream_error(path, e),
        kind => {
            let reason = match &kind {
                csv::ErrorKind::Utf8 { .. } => "the line is not UTF-8 text".to_owned(),
                other => format!("{other:?}"),
            };
            SourceError::BadRow { path: path.to_path_buf(), line: position.unwrap_or(0), reason }
        }
    }
}
