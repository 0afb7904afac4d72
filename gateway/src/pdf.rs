//! Documents as PDF: a page of labelled lines (a title, facts, a table of amounts and a note),
//! in any of the eight languages. Text is shaped (Arabic joins, Devanagari conjuncts), ordered
//! by the Unicode bidirectional algorithm (numbers stay left to right inside Arabic), and set
//! in the Noto font that covers each piece; a right-to-left language mirrors the page.

use std::sync::OnceLock;

use krilla::color::rgb;
use krilla::geom::{PathBuilder, Point, Rect};
use krilla::metadata::Metadata;
use krilla::page::PageSettings;
use krilla::paint::Fill;
use krilla::surface::Surface;
use krilla::text::{Font, TextDirection};
use krilla::Document;
use unicode_bidi::{BidiInfo, Level};

/// A4, in points.
const PAGE: (f32, f32) = (595.28, 841.89);
const MARGIN: f32 = 56.0;
const LINE: f32 = 1.45;

const INK: (u8, u8, u8) = (17, 24, 39);
const MUTED: (u8, u8, u8) = (90, 98, 112);
const RULE: (u8, u8, u8) = (200, 204, 212);

const FONT_DATA: [&[u8]; 3] = [
    include_bytes!("../assets/fonts/NotoSans-Regular.ttf"),
    include_bytes!("../assets/fonts/NotoSansArabic-Regular.ttf"),
    include_bytes!("../assets/fonts/NotoSansDevanagari-Regular.ttf"),
];

/// Each font twice: for krilla, which draws and embeds it, and for rustybuzz, which measures
/// a piece of text the way krilla will shape it.
struct Faces {
    draw: Vec<Font>,
    measure: Vec<rustybuzz::Face<'static>>,
}

fn faces() -> &'static Faces {
    static FACES: OnceLock<Faces> = OnceLock::new();
    FACES.get_or_init(|| Faces {
        draw: FONT_DATA
            .iter()
            .map(|data| Font::new((*data).into(), 0).expect("embedded fonts parse"))
            .collect(),
        measure: FONT_DATA
            .iter()
            .map(|data| rustybuzz::Face::from_slice(data, 0).expect("embedded fonts parse"))
            .collect(),
    })
}

/// The font of a character: 1 Arabic, 2 Devanagari, 0 the rest (Latin, Cyrillic, digits and
/// punctuation); none for spaces, which go with their neighbours.
fn face_of(c: char) -> Option<usize> {
    match u32::from(c) {
        0x20 | 0xA0 | 0x2009 | 0x202F => None,
        0x0600..=0x06FF | 0x0750..=0x077F | 0x08A0..=0x08FF | 0xFB50..=0xFDFF | 0xFE70..=0xFEFF => {
            Some(1)
        }
        0x0900..=0x097F | 0xA8E0..=0xA8FF | 0x1CD0..=0x1CFF => Some(2),
        _ => Some(0),
    }
}

/// A run of one font and direction, in visual order, with its width in points.
struct Piece<'a> {
    text: &'a str,
    face: usize,
    rtl: bool,
    width: f32,
}

fn advance(face: usize, text: &str, rtl: bool, size: f32) -> f32 {
    let face = &faces().measure[face];
    let mut buffer = rustybuzz::UnicodeBuffer::new();
    buffer.push_str(text);
    buffer.guess_segment_properties();
    buffer.set_direction(if rtl {
        rustybuzz::Direction::RightToLeft
    } else {
        rustybuzz::Direction::LeftToRight
    });
    let shaped = rustybuzz::shape(face, &[], buffer);
    let units: i32 = shaped.glyph_positions().iter().map(|p| p.x_advance).sum();
    units as f32 / face.units_per_em() as f32 * size
}

/// `text` as one line: bidirectional runs in visual order, each cut where the font changes.
/// The line's own direction is the page's, or with `None` its first strong character's (a
/// value such as "2026-11-27 02:50 UTC" reads left to right on an Arabic page too).
fn pieces(text: &str, size: f32, rtl_line: Option<bool>) -> Vec<Piece<'_>> {
    let level = rtl_line.map(|rtl| if rtl { Level::rtl() } else { Level::ltr() });
    let info = BidiInfo::new(text, level);
    let Some(paragraph) = info.paragraphs.first() else { return Vec::new() };
    let (levels, runs) = info.visual_runs(paragraph, paragraph.range.clone());
    let mut out = Vec::new();
    for run in runs {
        let rtl = levels[run.start].is_rtl();
        // (start, end, font): a font is set by the first character that needs one.
        let mut cuts: Vec<(usize, usize, Option<usize>)> = Vec::new();
        for (offset, c) in text[run.clone()].char_indices() {
            let at = run.start + offset;
            let face = face_of(c);
            match cuts.last_mut() {
                Some(last) if last.2.is_none() => last.2 = face,
                Some(last) if face.is_some() && last.2 != face => cuts.push((at, at, face)),
                None => cuts.push((at, at, face)),
                Some(_) => {}
            }
            let last = cuts.last_mut().expect("a cut was pushed");
            last.1 = at + c.len_utf8();
        }
        let mut run_pieces: Vec<Piece<'_>> = cuts
            .into_iter()
            .map(|(start, end, face)| {
                let face = face.unwrap_or(0);
                let text = &text[start..end];
                Piece { text, face, rtl, width: advance(face, text, rtl, size) }
            })
            .collect();
        if rtl {
            run_pieces.reverse();
        }
        out.extend(run_pieces);
    }
    out
}

/// The width of `text` set on one line.
fn width(text: &str, size: f32, rtl_page: bool) -> f32 {
    pieces(text, size, Some(rtl_page)).iter().map(|p| p.width).sum()
}

/// `text` cut at spaces into lines no wider than `max`.
fn wrap(text: &str, size: f32, rtl_page: bool, max: f32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let candidate = if line.is_empty() { word.to_owned() } else { format!("{line} {word}") };
        if !line.is_empty() && width(&candidate, size, rtl_page) > max {
            lines.push(std::mem::replace(&mut line, word.to_owned()));
        } else {
            line = candidate;
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Which edge of the page a piece of text starts from.
#[derive(Clone, Copy)]
enum Edge {
    /// Where the language's lines begin: the left, or the right in Arabic.
    Start,
    /// The other side.
    End,
}

struct Pen<'p, 's> {
    surface: &'p mut Surface<'s>,
    rtl: bool,
    y: f32,
}

impl Pen<'_, '_> {
    fn color(&mut self, (r, g, b): (u8, u8, u8)) {
        self.surface
            .set_fill(Some(Fill { paint: rgb::Color::new(r, g, b).into(), ..Fill::default() }));
    }

    /// Sets `text` on the current baseline against `edge`: a label or a sentence in the
    /// page's direction, a value (`Edge::End`) in its own.
    fn text(&mut self, text: &str, size: f32, edge: Edge, color: (u8, u8, u8)) {
        let line = match edge {
            Edge::Start => Some(self.rtl),
            Edge::End => None,
        };
        let pieces = pieces(text, size, line);
        let total: f32 = pieces.iter().map(|p| p.width).sum();
        let left_edge = matches!((edge, self.rtl), (Edge::Start, false) | (Edge::End, true));
        let mut x = if left_edge { MARGIN } else { PAGE.0 - MARGIN - total };
        self.color(color);
        for piece in pieces {
            let direction =
                if piece.rtl { TextDirection::RightToLeft } else { TextDirection::LeftToRight };
            let font = faces().draw[piece.face].clone();
            self.surface.draw_text(
                Point::from_xy(x, self.y),
                font,
                size,
                piece.text,
                false,
                direction,
            );
            x += piece.width;
        }
    }

    fn rule(&mut self) {
        let mut path = PathBuilder::new();
        if let Some(rect) = Rect::from_xywh(MARGIN, self.y, PAGE.0 - 2.0 * MARGIN, 0.6) {
            path.push_rect(rect);
        }
        if let Some(path) = path.finish() {
            self.color(RULE);
            self.surface.draw_path(&path);
        }
    }
}

/// One line of the table: a label and its amount.
#[derive(Debug)]
pub struct Row {
    pub label: String,
    pub value: String,
    /// A balance line, set apart by rules.
    pub balance: bool,
}

/// A one-page document of facts and amounts.
#[derive(Debug)]
pub struct Sheet {
    /// A language tag of `locales/` (`ar-AR` mirrors the page).
    pub language: &'static str,
    pub title: String,
    /// Labelled facts under the title (holder, account, period, ...).
    pub facts: Vec<(String, String)>,
    pub rows: Vec<Row>,
    /// A closing paragraph.
    pub note: String,
}

/// Writing the PDF failed (a bug: the fonts are embedded and the content is text).
#[derive(Debug, thiserror::Error)]
#[error("the PDF could not be written: {0}")]
pub struct PdfError(String);

/// The sheet as a PDF file.
pub fn render(sheet: &Sheet) -> Result<Vec<u8>, PdfError> {
    let rtl = sheet.language.starts_with("ar");
    let mut document = Document::new();
    document.set_metadata(
        Metadata::new().title(sheet.title.clone()).language(sheet.language.to_owned()),
    );
    let settings =
        PageSettings::from_wh(PAGE.0, PAGE.1).ok_or_else(|| PdfError("page size".into()))?;
    let mut page = document.start_page_with(settings);
    let mut surface = page.surface();
    draw(&mut Pen { surface: &mut surface, rtl, y: MARGIN + 20.0 }, sheet);
    surface.finish();
    page.finish();
    document.finish().map_err(|e| PdfError(format!("{e:?}")))
}

fn draw(pen: &mut Pen<'_, '_>, sheet: &Sheet) {
    let rtl = pen.rtl;

    pen.text(&sheet.title, 20.0, Edge::Start, INK);
    pen.y += 20.0 * LINE + 6.0;
    for (label, value) in &sheet.facts {
        pen.text(label, 9.5, Edge::Start, MUTED);
        pen.text(value, 10.5, Edge::End, INK);
        pen.y += 10.5 * LINE + 3.0;
    }
    pen.y += 8.0;
    for row in &sheet.rows {
        if row.balance {
            pen.rule();
            pen.y += 16.0;
        }
        let size = if row.balance { 12.0 } else { 11.0 };
        pen.text(&row.label, size, Edge::Start, INK);
        pen.text(&row.value, size, Edge::End, INK);
        pen.y += 7.0;
        if row.balance {
            pen.rule();
        }
        pen.y += size * LINE;
    }
    pen.y += 10.0;
    for line in wrap(&sheet.note, 9.5, rtl, PAGE.0 - 2.0 * MARGIN) {
        pen.text(&line, 9.5, Edge::Start, MUTED);
        pen.y += 9.5 * LINE;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arabic_with_digits_is_cut_into_runs_in_visual_order() {
        // "الرصيد 12.50": an Arabic word then a number, on a right-to-left line. Visually the
        // number comes first (leftmost), set left to right in the Latin font.
        let pieces = pieces("الرصيد 12.50", 12.0, Some(true));
        let described: Vec<_> = pieces.iter().map(|p| (p.text.trim(), p.face, p.rtl)).collect();
        assert_eq!(described, [("12.50", 0, false), ("الرصيد", 1, true)]);
        assert!(pieces.iter().all(|p| p.width > 0.0));
    }

    #[test]
    fn a_value_keeps_its_own_direction_on_an_arabic_page() {
        let date = pieces("2026-11-27 02:50 UTC", 10.0, None);
        assert_eq!(date.len(), 1);
        assert!(!date[0].rtl);
        let arabic = pieces("حقيقي", 10.0, None);
        assert!(arabic[0].rtl);
    }

    #[test]
    fn devanagari_and_latin_take_their_own_fonts() {
        let pieces = pieces("खाता UID 7", 12.0, Some(false));
        let faces: Vec<_> = pieces.iter().map(|p| (p.text.trim(), p.face)).collect();
        assert_eq!(faces, [("खाता", 2), ("UID 7", 0)]);
    }

    #[test]
    fn a_long_note_wraps_within_the_width() {
        let note = "word ".repeat(200);
        let lines = wrap(&note, 9.5, false, 300.0);
        assert!(lines.len() > 3);
        assert!(lines.iter().all(|l| width(l, 9.5, false) <= 300.0));
        assert_eq!(lines.join(" ").split(' ').count(), 200);
    }

    #[test]
    fn a_sheet_renders_in_every_script() {
        for (language, title) in
            [("en-US", "Account statement"), ("ar-AR", "كشف الحساب"), ("hi-IN", "खाता विवरण")]
        {
            let sheet = Sheet {
                language,
                title: title.into(),
                facts: vec![("UID".into(), "7".into())],
                rows: vec![Row { label: title.into(), value: "1,000.00".into(), balance: true }],
                note: title.repeat(30),
            };
            let pdf = render(&sheet).unwrap();
            assert!(pdf.starts_with(b"%PDF-"), "{language}");
        }
    }
}
