//! The one ingredient-line parser: what a client sends as `{line}`, what the model
//! generates and what an imported page lists all become [`RecipeIngredient`]s here.
//!
//! A line is `[amount] [unit] name[, note]`:
//! - amount: an integer, a decimal (`1.5`, `1,5`), a fraction (`1/2`, `1 1/2`), a unicode
//!   vulgar fraction (`½`, `1½`, `1 ½`), a range of two of them (`1-2`, `1–2`, `1 to 2`,
//!   `1 or 2`, `1 bis 2`), or an article before a unit (`a pinch`, `an 8-ounce can`: 1).
//!   `amount` keeps it exactly as written; `quantity` (and `quantityMax` for a range) are its
//!   numbers, for scaling and merging.
//! - unit: metric, US and kitchen units in English, German, French and Hungarian, each with
//!   its plurals and abbreviations, stored in one canonical spelling (`tablespoons`, `Tbsp.`,
//!   `EL` and `evőkanál` are all `tbsp`; see [`canonical_unit`]). A unit glued to the number
//!   (`200g`) is read too; `of` after it (`a pinch of salt`) is dropped.
//! - note: a trailing `(...)`, what follows the first comma, and phrases like `to taste`,
//!   `as needed`, `for serving`, `nach Geschmack`, `ízlés szerint`.
//!
//! Nothing is ever refused: a line with no amount is all name (`salt to taste` has no
//! quantity, note `to taste`), and every part fits its bound (a name longer than 100
//! characters moves its tail to the note). [`line`] writes an ingredient back so that the
//! parse of its line is the same ingredient.

use crate::model::{RecipeIngredient, MAX_AMOUNT, MAX_INGREDIENT_NAME, MAX_NOTE, MAX_QUANTITY};

/// Unicode vulgar fractions and their values.
const VULGAR: &[(char, f64)] = &[
    ('½', 1.0 / 2.0),
    ('⅓', 1.0 / 3.0),
    ('⅔', 2.0 / 3.0),
    ('¼', 1.0 / 4.0),
    ('¾', 3.0 / 4.0),
    ('⅕', 1.0 / 5.0),
    ('⅖', 2.0 / 5.0),
    ('⅗', 3.0 / 5.0),
    ('⅘', 4.0 / 5.0),
    ('⅙', 1.0 / 6.0),
    ('⅚', 5.0 / 6.0),
    ('⅐', 1.0 / 7.0),
    ('⅛', 1.0 / 8.0),
    ('⅜', 3.0 / 8.0),
    ('⅝', 5.0 / 8.0),
    ('⅞', 7.0 / 8.0),
    ('⅑', 1.0 / 9.0),
    ('⅒', 1.0 / 10.0),
];

/// Canonical units and the spellings that mean them (lowercase, without a trailing dot).
/// Multi-word spellings are matched before single words.
const UNITS: &[(&str, &[&str])] = &[
    (
        "g",
        &[
            "g", "gr", "gram", "grams", "gramm", "gramme", "grammes", "gramos",
        ],
    ),
    (
        "kg",
        &[
            "kg",
            "kgs",
            "kilo",
            "kilos",
            "kilogram",
            "kilograms",
            "kilogramm",
            "kilogramme",
            "kilogrammes",
        ],
    ),
    ("mg", &["mg", "milligram", "milligrams", "milligramm"]),
    ("dkg", &["dkg", "dag", "deka", "dekagramm", "dekagram"]),
    (
        "ml",
        &[
            "ml",
            "mls",
            "millilitre",
            "milliliter",
            "millilitres",
            "milliliters",
            "milliliter",
        ],
    ),
    (
        "cl",
        &[
            "cl",
            "centilitre",
            "centiliter",
            "centilitres",
            "centiliters",
        ],
    ),
    (
        "dl",
        &["dl", "decilitre", "deciliter", "decilitres", "deciliters"],
    ),
    (
        "l",
        &["l", "litre", "liter", "litres", "liters", "lt", "ltr"],
    ),
    (
        "tsp",
        &[
            "tsp",
            "tsps",
            "t",
            "teaspoon",
            "teaspoons",
            "teasp",
            "tl",
            "teelöffel",
            "c. à café",
            "c. a café",
            "c. à c",
            "càc",
            "cuillère à café",
            "cuillères à café",
            "cuillere a cafe",
            "tk",
            "kk",
            "teáskanál",
            "kávéskanál",
            "kiskanál",
        ],
    ),
    (
        "tbsp",
        &[
            "tbsp",
            "tbsps",
            "tbs",
            "tbl",
            "tbl",
            "tablespoon",
            "tablespoons",
            "el",
            "esslöffel",
            "c. à soupe",
            "c. a soupe",
            "c. à s",
            "càs",
            "cuillère à soupe",
            "cuillères à soupe",
            "cuillere a soupe",
            "ek",
            "evőkanál",
            "evokanal",
        ],
    ),
    (
        "cup",
        &["cup", "cups", "c", "tasse", "tassen", "bögre", "csésze"],
    ),
    (
        "fl oz",
        &[
            "fl oz",
            "fl. oz",
            "fl.oz",
            "floz",
            "fluid ounce",
            "fluid ounces",
        ],
    ),
    ("oz", &["oz", "ozs", "ounce", "ounces"]),
    ("lb", &["lb", "lbs", "pound", "pounds"]),
    ("pint", &["pint", "pints", "pt", "pts"]),
    ("quart", &["quart", "quarts", "qt", "qts"]),
    ("gallon", &["gallon", "gallons", "gal"]),
    (
        "clove",
        &[
            "clove",
            "cloves",
            "zehe",
            "zehen",
            "knoblauchzehe",
            "knoblauchzehen",
            "gousse",
            "gousses",
            "gerezd",
        ],
    ),
    (
        "can",
        &[
            "can", "cans", "tin", "tins", "dose", "dosen", "boîte", "boîtes", "konzerv", "doboz",
        ],
    ),
    (
        "pinch",
        &[
            "pinch",
            "pinches",
            "prise",
            "prisen",
            "pincée",
            "pincées",
            "csipet",
            "csipetnyi",
        ],
    ),
    ("dash", &["dash", "dashes", "schuss", "spritzer", "trait"]),
    (
        "handful",
        &[
            "handful",
            "handfuls",
            "handvoll",
            "poignée",
            "poignées",
            "marék",
            "maréknyi",
        ],
    ),
    (
        "slice",
        &[
            "slice", "slices", "scheibe", "scheiben", "tranche", "tranches", "szelet",
        ],
    ),
    (
        "piece",
        &[
            "piece", "pieces", "pc", "pcs", "stück", "stk", "pièce", "pièces", "db", "darab",
        ],
    ),
    (
        "bunch",
        &[
            "bunch", "bunches", "bund", "botte", "bottes", "csokor", "csomó",
        ],
    ),
    (
        "sprig",
        &[
            "sprig", "sprigs", "zweig", "zweige", "brin", "brins", "ág", "szál",
        ],
    ),
    ("stick", &["stick", "sticks", "stange", "stangen"]),
    (
        "packet",
        &[
            "packet",
            "packets",
            "package",
            "packages",
            "pkg",
            "pack",
            "packs",
            "päckchen",
            "pck",
            "pkt",
            "packung",
            "sachet",
            "sachets",
            "csomag",
            "tasak",
        ],
    ),
    ("jar", &["jar", "jars", "glas", "gläser", "bocal", "üveg"]),
    (
        "bottle",
        &[
            "bottle",
            "bottles",
            "flasche",
            "flaschen",
            "bouteille",
            "palack",
        ],
    ),
    ("head", &["head", "heads", "kopf", "köpfe", "fej"]),
    ("stalk", &["stalk", "stalks", "rib", "ribs"]),
    (
        "leaf",
        &[
            "leaf", "leaves", "blatt", "blätter", "feuille", "feuilles", "levél",
        ],
    ),
    (
        "drop",
        &["drop", "drops", "tropfen", "goutte", "gouttes", "csepp"],
    ),
    ("cube", &["cube", "cubes", "würfel", "kocka"]),
    ("knob", &["knob", "knobs"]),
    ("sheet", &["sheet", "sheets", "blatt teig"]),
    ("fillet", &["fillet", "fillets", "filet", "filets"]),
    ("tub", &["tub", "tubs", "becher", "pot", "pohár"]),
    (
        "msp",
        &["msp", "messerspitze", "messerspitzen", "késhegynyi"],
    ),
];

/// Canonical units written in the plural after a quantity above one (`2 cups`); the
/// abbreviations (`g`, `tbsp`, `oz`) never are.
const PLURALS: &[(&str, &str)] = &[
    ("cup", "cups"),
    ("pint", "pints"),
    ("quart", "quarts"),
    ("gallon", "gallons"),
    ("clove", "cloves"),
    ("can", "cans"),
    ("pinch", "pinches"),
    ("dash", "dashes"),
    ("handful", "handfuls"),
    ("slice", "slices"),
    ("piece", "pieces"),
    ("bunch", "bunches"),
    ("sprig", "sprigs"),
    ("stick", "sticks"),
    ("packet", "packets"),
    ("jar", "jars"),
    ("bottle", "bottles"),
    ("head", "heads"),
    ("stalk", "stalks"),
    ("leaf", "leaves"),
    ("drop", "drops"),
    ("cube", "cubes"),
    ("knob", "knobs"),
    ("sheet", "sheets"),
    ("fillet", "fillets"),
    ("tub", "tubs"),
];

/// Single letters that are units only in this case (`1 t` is a teaspoon, `1 T` a
/// tablespoon, `1 c` a cup; a lone `l` stays a litre whatever its case).
fn case_sensitive(word: &str) -> Option<&'static str> {
    match word {
        "t" => Some("tsp"),
        "T" | "Tb" | "TB" => Some("tbsp"),
        "c" | "C" => Some("cup"),
        _ => None,
    }
}

/// Phrases that end a line and are its note, written after the name with a space.
const TRAILING_NOTES: &[&str] = &[
    "or to taste",
    "to taste",
    "as needed",
    "as required",
    "if needed",
    "for serving",
    "to serve",
    "for garnish",
    "to garnish",
    "for frying",
    "for greasing",
    "for dusting",
    "nach geschmack",
    "nach belieben",
    "nach bedarf",
    "zum bestreuen",
    "zum braten",
    "zum servieren",
    "selon le goût",
    "selon goût",
    "au goût",
    "ízlés szerint",
    "tetszés szerint",
    "ízlés szerinti mennyiségben",
];

/// The canonical spelling of a unit, if `word` names one (`Tablespoons` → `tbsp`).
pub fn canonical_unit(word: &str) -> Option<&'static str> {
    if let Some(unit) = case_sensitive(word) {
        return Some(unit);
    }
    let lower = word.trim().to_lowercase();
    let lower = lower.trim_end_matches('.');
    if lower.len() == 1 && lower != "l" && lower != "g" {
        return None;
    }
    UNITS
        .iter()
        .find(|(_, spellings)| spellings.contains(&lower))
        .map(|(unit, _)| *unit)
}

fn vulgar(c: char) -> Option<f64> {
    VULGAR
        .iter()
        .find(|(v, _)| *v == c)
        .map(|(_, value)| *value)
}

/// A cursor over a line's characters.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn spaces(&mut self) -> usize {
        let start = self.pos;
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
        self.pos - start
    }

    fn digits(&mut self) -> Option<(f64, usize)> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.bump();
        }
        let n = self.pos - start;
        (n > 0 && n <= 7)
            .then(|| self.text[start..self.pos].parse().ok())
            .flatten()
            .map(|v| (v, n))
            .or_else(|| {
                self.pos = start;
                None
            })
    }

    /// `/3` or `⁄3` after a numerator.
    fn denominator(&mut self) -> Option<f64> {
        let save = self.pos;
        if matches!(self.peek(), Some('/' | '⁄')) {
            self.bump();
            if let Some((d, _)) = self.digits().filter(|(d, _)| *d > 0.0) {
                return Some(d);
            }
        }
        self.pos = save;
        None
    }

    /// One number: `1`, `1.5`, `1,5`, `1/2`, `1 1/2`, `½`, `1½`, `1 ½`.
    fn number(&mut self) -> Option<f64> {
        let start = self.pos;
        if let Some(v) = self.peek().and_then(vulgar) {
            self.bump();
            return Some(v);
        }
        let (whole, _) = self.digits()?;
        if let Some(d) = self.denominator() {
            return Some(whole / d);
        }
        if let Some(v) = self.peek().and_then(vulgar) {
            self.bump();
            return Some(whole + v);
        }
        let after_whole = self.pos;
        if matches!(self.peek(), Some('.' | ',')) {
            self.bump();
            let frac_start = self.pos;
            if let Some((_, n)) = self.digits() {
                let raw = format!("0.{}", &self.text[frac_start..frac_start + n]);
                return raw.parse::<f64>().ok().map(|f| whole + f);
            }
            self.pos = after_whole;
        }
        // A mixed number: `1 1/2`, `1 ½`.
        if self.spaces() == 1 {
            if let Some(v) = self.peek().and_then(vulgar) {
                self.bump();
                return Some(whole + v);
            }
            let save = self.pos;
            if let Some((n, _)) = self.digits() {
                if let Some(d) = self.denominator() {
                    return Some(whole + n / d);
                }
            }
            self.pos = save;
        }
        self.pos = after_whole;
        debug_assert!(self.pos > start);
        Some(whole)
    }

    /// The word ahead is `word` (case-insensitive), followed by a space.
    fn keyword(&mut self, words: &[&str]) -> bool {
        let rest = self.rest();
        for word in words {
            let n = word.len();
            if rest.len() > n
                && rest.is_char_boundary(n)
                && rest[..n].eq_ignore_ascii_case(word)
                && rest[n..].starts_with(char::is_whitespace)
            {
                self.pos += n;
                return true;
            }
        }
        false
    }

    /// A range's second number: `-2`, `– 2`, ` to 2`, ` or 2`, ` bis 2`, ` à 2`.
    fn range_end(&mut self) -> Option<f64> {
        let save = self.pos;
        self.spaces();
        let dash = matches!(self.peek(), Some('-' | '–' | '—'));
        if dash {
            self.bump();
        } else if !self.keyword(&["to", "or", "bis", "à"]) {
            self.pos = save;
            return None;
        }
        self.spaces();
        match self.number() {
            Some(v) => Some(v),
            None => {
                self.pos = save;
                None
            }
        }
    }
}

/// The leading amount: its text's end and its numbers.
fn amount(c: &mut Cursor) -> Option<(usize, f64, Option<f64>)> {
    let low = c.number()?;
    let end_low = c.pos;
    match c.range_end() {
        Some(high) if high > low => Some((c.pos, low, Some(high))),
        Some(_) | None => {
            c.pos = end_low;
            Some((end_low, low, None))
        }
    }
}

/// The number (or range) a text starts with: `4`, `4-6`, `1½`.
pub fn leading_quantity(text: &str) -> Option<(f64, Option<f64>)> {
    let text = collapse(text);
    let mut c = Cursor {
        text: &text,
        pos: 0,
    };
    amount(&mut c).map(|(_, low, high)| (low, high))
}

/// A unit at the cursor (after an amount): its canonical spelling, the cursor moved past it.
fn unit(c: &mut Cursor) -> Option<&'static str> {
    let rest = c.rest();
    let lower = rest.to_lowercase();
    // Multi-word spellings first (`fl oz`, `c. à soupe`), on a word boundary.
    if lower.len() == rest.len() {
        for (canonical, spellings) in UNITS {
            for s in spellings.iter().filter(|s| s.contains(' ')) {
                if lower.starts_with(s) {
                    let after = &rest[s.len()..];
                    let after = after.strip_prefix('.').unwrap_or(after);
                    if after.is_empty() || after.starts_with([' ', ',', '(']) {
                        c.pos += rest.len() - after.len();
                        return Some(canonical);
                    }
                }
            }
        }
    }
    let end = rest
        .find(|ch: char| ch.is_whitespace() || ch == ',' || ch == '(' || ch == ')')
        .unwrap_or(rest.len());
    let word = &rest[..end];
    // `Tbsp.` and `EL.` carry a dot; `pck.` too.
    let found = canonical_unit(word).or_else(|| canonical_unit(word.trim_end_matches('.')));
    if let Some(unit) = found {
        c.pos += end;
        return Some(unit);
    }
    None
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn push_note(note: &mut Option<String>, part: &str) {
    let part = part
        .trim()
        .trim_matches(|c: char| c == ',' || c == ';')
        .trim();
    if part.is_empty() {
        return;
    }
    match note {
        Some(n) => {
            n.push_str(", ");
            n.push_str(part);
        }
        None => *note = Some(part.to_string()),
    }
}

fn truncate(text: &str, max: usize) -> String {
    text.chars()
        .take(max)
        .collect::<String>()
        .trim()
        .to_string()
}

/// Parses one ingredient line (see the module's documentation). Never fails: the name is
/// never empty for a line that is not blank.
pub fn parse(line: &str) -> RecipeIngredient {
    let text = collapse(line);
    let mut c = Cursor {
        text: &text,
        pos: 0,
    };
    let mut out = RecipeIngredient::default();
    let mut note = None;
    // An article counts as one only before a unit: `a pinch of salt`, not `a little oil`.
    let article = {
        let save = c.pos;
        if c.keyword(&["a", "an", "ein", "eine", "einen", "un", "une", "egy"]) {
            let word_end = c.pos;
            c.spaces();
            if unit(&mut c).is_some() {
                c.pos = word_end;
                true
            } else {
                c.pos = save;
                false
            }
        } else {
            false
        }
    };
    if article {
        out.amount = Some(text[..c.pos].to_string());
        out.quantity = Some(1.0);
    } else if let Some((end, low, high)) = amount(&mut c) {
        let written = &text[..end];
        let in_bounds = low <= MAX_QUANTITY && high.is_none_or(|h| h <= MAX_QUANTITY);
        if written.chars().count() <= MAX_AMOUNT && in_bounds {
            out.amount = Some(written.to_string());
            out.quantity = Some(low);
            out.quantity_max = high;
        } else if written.chars().count() <= MAX_AMOUNT {
            // Beyond any kitchen's scale: kept as written, not counted.
            out.amount = Some(written.to_string());
        } else {
            c.pos = 0;
        }
    }
    if out.amount.is_some() {
        // `1 (14 oz) can tomatoes`: the parenthesis is a note on the amount.
        let save = c.pos;
        c.spaces();
        if c.peek() == Some('(') {
            if let Some(close) = c.rest().find(')') {
                let inner = &c.rest()[1..close];
                push_note(&mut note, inner);
                c.pos += close + 1;
            } else {
                c.pos = save;
            }
        } else {
            c.pos = save;
        }
        // `x` between a count and a size: `2 x 400g tins` (the size is a note).
        let save = c.pos;
        c.spaces();
        if c.keyword(&["x", "×"]) {
            c.spaces();
            let size_start = c.pos;
            if c.number().is_some() {
                let glued = c.peek().is_some_and(char::is_alphabetic);
                if glued || c.spaces() > 0 {
                    if unit(&mut c).is_some() {
                        push_note(&mut note, &text[size_start..c.pos]);
                    } else {
                        c.pos = save;
                    }
                } else {
                    c.pos = save;
                }
            } else {
                c.pos = save;
            }
        } else {
            c.pos = save;
        }
        let glued = c.peek().is_some_and(char::is_alphabetic);
        if glued || c.spaces() > 0 {
            let before_unit = c.pos;
            if let Some(u) = unit(&mut c) {
                // A glued unit must end its word (`200g`, not `2eggs`).
                out.unit = u.to_string();
                if !c
                    .peek()
                    .is_none_or(|ch| ch.is_whitespace() || ch == ',' || ch == '(')
                {
                    c.pos = before_unit;
                    out.unit.clear();
                }
            }
        }
        if !out.unit.is_empty() {
            // `1 cup (2 sticks) butter`: a parenthesis after the unit is a note too.
            let save = c.pos;
            c.spaces();
            match (c.peek(), c.rest().find(')')) {
                (Some('('), Some(close)) => {
                    push_note(&mut note, &c.rest()[1..close]);
                    c.pos += close + 1;
                }
                _ => c.pos = save,
            }
            let save = c.pos;
            c.spaces();
            if !c.keyword(&["of", "de"]) {
                c.pos = save;
                // `d'huile`, `d’ail`: the elided French `de`.
                c.spaces();
                let rest = c.rest();
                if rest.starts_with("d'") || rest.starts_with("d’") {
                    c.pos += if rest.starts_with("d'") { 2 } else { 4 };
                } else {
                    c.pos = save;
                }
            }
        }
    }
    let rest_start = c.pos;
    let mut name = text[rest_start..].trim().to_string();
    // A trailing parenthesis: `(optional)`, `(about 200 g)`.
    if name.ends_with(')') {
        if let Some(open) = name.rfind('(').filter(|o| *o > 0) {
            let inner = name[open + 1..name.len() - 1].to_string();
            name.truncate(open);
            name = name.trim().to_string();
            let mut paren = Some(inner);
            std::mem::swap(&mut paren, &mut note);
            push_note(&mut note, paren.as_deref().unwrap_or(""));
        }
    }
    if let Some(comma) = name.find(',') {
        let after = name[comma + 1..].to_string();
        name.truncate(comma);
        let mut tail = Some(after.trim().to_string());
        if let Some(existing) = note.take() {
            push_note(&mut tail, &existing);
        }
        note = tail.filter(|t| !t.is_empty());
    }
    let lower = name.to_lowercase();
    if let Some(phrase) = TRAILING_NOTES
        .iter()
        .filter(|_| lower.len() == name.len())
        .find(|p| {
            lower.ends_with(*p)
                && lower.len() > p.len()
                && lower[..lower.len() - p.len()].ends_with(' ')
        })
    {
        let cut = name.len() - phrase.len();
        let written = name[cut..].to_string();
        name.truncate(cut);
        name = name.trim().to_string();
        let mut tail = Some(written);
        if let Some(existing) = note.take() {
            push_note(&mut tail, &existing);
        }
        note = tail;
    }
    let name = name.trim().trim_end_matches([',', ';', '-', '–']).trim();
    let mut name = name.to_string();
    if name.is_empty() {
        if !out.unit.is_empty() {
            // `2 cloves`: the unit was the name.
            name = text[..rest_start]
                .trim_start_matches(out.amount.as_deref().unwrap_or(""))
                .trim()
                .to_string();
            out.unit.clear();
        }
        if name.is_empty() {
            // Nothing but an amount or a note: the line is the name, counted as nothing.
            return RecipeIngredient {
                name: truncate(&text, MAX_INGREDIENT_NAME),
                note: (text.chars().count() > MAX_INGREDIENT_NAME)
                    .then(|| {
                        truncate(
                            &text.chars().skip(MAX_INGREDIENT_NAME).collect::<String>(),
                            MAX_NOTE,
                        )
                    })
                    .filter(|n| !n.is_empty()),
                ..Default::default()
            };
        }
    }
    if name.chars().count() > MAX_INGREDIENT_NAME {
        // Cut at the last space that fits; the tail leads the note.
        let head: String = name.chars().take(MAX_INGREDIENT_NAME).collect();
        let cut = head.rfind(' ').filter(|i| *i > 0).unwrap_or(head.len());
        let tail = name[cut..].trim().to_string();
        name = name[..cut].trim().to_string();
        let mut merged = Some(tail);
        if let Some(existing) = note.take() {
            push_note(&mut merged, &existing);
        }
        note = merged;
    }
    out.name = name;
    out.note = note
        .map(|n| truncate(&n, MAX_NOTE))
        .filter(|n| !n.is_empty());
    out
}

/// A number as a cook writes it: `0.5`, `2`, `1.25`.
pub fn format_quantity(q: f64) -> String {
    let rounded = (q * 1000.0).round() / 1000.0;
    if rounded.fract() == 0.0 {
        format!("{rounded:.0}")
    } else {
        format!("{rounded}")
    }
}

/// The line an ingredient is written as: its amount as written (else its quantity), its
/// unit (plural after more than one; `a pinch of`), its name and its note (`to taste`
/// after a space, others after a comma). [`parse`] of this line is the same ingredient.
pub fn line(i: &RecipeIngredient) -> String {
    let mut parts: Vec<String> = Vec::new();
    let article = i
        .amount
        .as_deref()
        .is_some_and(|a| a.chars().all(char::is_alphabetic));
    match (&i.amount, i.quantity) {
        (Some(amount), _) => parts.push(amount.clone()),
        (None, Some(q)) => parts.push(match i.quantity_max {
            Some(max) => format!("{}-{}", format_quantity(q), format_quantity(max)),
            None => format_quantity(q),
        }),
        (None, None) => {}
    }
    if !i.unit.is_empty() {
        let many = i.quantity_max.or(i.quantity).is_some_and(|q| q > 1.0);
        let unit = match PLURALS.iter().find(|(one, _)| *one == i.unit) {
            Some((_, plural)) if many => plural,
            _ => i.unit.as_str(),
        };
        parts.push(if article {
            format!("{unit} of")
        } else {
            unit.to_string()
        });
    }
    parts.push(i.name.clone());
    let mut out = parts.join(" ");
    if let Some(note) = &i.note {
        let lower = note.to_lowercase();
        if TRAILING_NOTES.contains(&lower.as_str()) {
            out.push(' ');
        } else {
            out.push_str(", ");
        }
        out.push_str(note);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ing(
        quantity: Option<f64>,
        quantity_max: Option<f64>,
        amount: Option<&str>,
        unit: &str,
        name: &str,
        note: Option<&str>,
    ) -> RecipeIngredient {
        RecipeIngredient {
            quantity,
            quantity_max,
            amount: amount.map(str::to_string),
            unit: unit.into(),
            name: name.into(),
            note: note.map(str::to_string),
        }
    }

    fn close(a: Option<f64>, b: Option<f64>) -> bool {
        match (a, b) {
            (Some(a), Some(b)) => (a - b).abs() < 1e-9,
            (None, None) => true,
            _ => false,
        }
    }

    fn check(input: &str, expected: RecipeIngredient) {
        let got = parse(input);
        assert!(
            close(got.quantity, expected.quantity)
                && close(got.quantity_max, expected.quantity_max),
            "{input}: quantities {:?}-{:?}, expected {:?}-{:?}",
            got.quantity,
            got.quantity_max,
            expected.quantity,
            expected.quantity_max
        );
        let strip = |i: &RecipeIngredient| RecipeIngredient {
            quantity: None,
            quantity_max: None,
            ..i.clone()
        };
        assert_eq!(strip(&got), strip(&expected), "{input}");
    }

    #[test]
    fn the_issues_lines_round_trip_unchanged() {
        for written in [
            "1/2 cup cream",
            "½ tsp chili flakes",
            "a pinch of salt",
            "salt to taste",
            "1 1/2 cups flour",
            "1-2 cloves garlic, crushed",
            "2 eggs",
            "200 g butter, softened",
            "1½ tbsp olive oil",
        ] {
            let parsed = parse(written);
            assert_eq!(line(&parsed), written, "{parsed:?}");
            assert_eq!(parse(&line(&parsed)), parsed, "{written}");
        }
        check(
            "1/2 cup cream",
            ing(Some(0.5), None, Some("1/2"), "cup", "cream", None),
        );
        check(
            "½ tsp chili flakes",
            ing(Some(0.5), None, Some("½"), "tsp", "chili flakes", None),
        );
        check(
            "a pinch of salt",
            ing(Some(1.0), None, Some("a"), "pinch", "salt", None),
        );
        check(
            "salt to taste",
            ing(None, None, None, "", "salt", Some("to taste")),
        );
    }

    #[test]
    fn quantities() {
        check("2 eggs", ing(Some(2.0), None, Some("2"), "", "eggs", None));
        check(
            "1.5 kg potatoes",
            ing(Some(1.5), None, Some("1.5"), "kg", "potatoes", None),
        );
        check(
            "1,5 l Milch",
            ing(Some(1.5), None, Some("1,5"), "l", "Milch", None),
        );
        check(
            "1 1/2 cups flour",
            ing(Some(1.5), None, Some("1 1/2"), "cup", "flour", None),
        );
        check(
            "1½ cups flour",
            ing(Some(1.5), None, Some("1½"), "cup", "flour", None),
        );
        check(
            "1 ½ cups flour",
            ing(Some(1.5), None, Some("1 ½"), "cup", "flour", None),
        );
        check(
            "⅓ cup sugar",
            ing(Some(1.0 / 3.0), None, Some("⅓"), "cup", "sugar", None),
        );
        check(
            "¾ cup milk",
            ing(Some(0.75), None, Some("¾"), "cup", "milk", None),
        );
        check(
            "2⅔ cups water",
            ing(Some(8.0 / 3.0), None, Some("2⅔"), "cup", "water", None),
        );
        check(
            "1⁄4 tsp salt",
            ing(Some(0.25), None, Some("1⁄4"), "tsp", "salt", None),
        );
        check(
            "200g flour",
            ing(Some(200.0), None, Some("200"), "g", "flour", None),
        );
    }

    #[test]
    fn ranges() {
        check(
            "1-2 cloves garlic",
            ing(Some(1.0), Some(2.0), Some("1-2"), "clove", "garlic", None),
        );
        check(
            "1 to 2 tbsp honey",
            ing(Some(1.0), Some(2.0), Some("1 to 2"), "tbsp", "honey", None),
        );
        check(
            "1–2 chillies",
            ing(Some(1.0), Some(2.0), Some("1–2"), "", "chillies", None),
        );
        check(
            "2 - 3 tbsp water",
            ing(Some(2.0), Some(3.0), Some("2 - 3"), "tbsp", "water", None),
        );
        check(
            "½-1 tsp cayenne",
            ing(Some(0.5), Some(1.0), Some("½-1"), "tsp", "cayenne", None),
        );
        check(
            "2 bis 3 EL Öl",
            ing(Some(2.0), Some(3.0), Some("2 bis 3"), "tbsp", "Öl", None),
        );
        assert_eq!(line(&parse("1-2 cloves garlic")), "1-2 cloves garlic");
    }

    #[test]
    fn units_have_one_spelling() {
        for (written, unit) in [
            ("2 Tbsp. butter", "tbsp"),
            ("2 tablespoons butter", "tbsp"),
            ("2 T butter", "tbsp"),
            ("2 t salt", "tsp"),
            ("2 teaspoons salt", "tsp"),
            ("3 cups rice", "cup"),
            ("8 fl oz stock", "fl oz"),
            ("8 fluid ounces stock", "fl oz"),
            ("4 oz cheddar", "oz"),
            ("1 lb beef", "lb"),
            ("2 lbs beef", "lb"),
            ("1 pint cream", "pint"),
            ("1 quart stock", "quart"),
            ("3 cloves garlic", "clove"),
            ("1 can chickpeas", "can"),
            ("2 tins tomatoes", "can"),
            ("4 slices bread", "slice"),
            ("2 pieces ginger", "piece"),
            ("1 dash Worcestershire sauce", "dash"),
            ("1 handful basil", "handful"),
            ("250 ml milk", "ml"),
            ("2 dl tejszín", "dl"),
            ("5 cl rum", "cl"),
            ("1 l water", "l"),
            ("2 EL Olivenöl", "tbsp"),
            ("1 TL Salz", "tsp"),
            ("1 Prise Salz", "pinch"),
            ("2 Zehen Knoblauch", "clove"),
            ("2 c. à soupe d'huile", "tbsp"),
            ("1 pincée de sel", "pinch"),
            ("2 gousses d'ail", "clove"),
            ("2 ek olaj", "tbsp"),
            ("1 csipet só", "pinch"),
            ("3 gerezd fokhagyma", "clove"),
            ("25 dkg liszt", "dkg"),
            ("2 db tojás", "piece"),
        ] {
            assert_eq!(parse(written).unit, unit, "{written}");
        }
        assert_eq!(parse("2 c. à soupe d'huile").name, "huile");
        assert_eq!(parse("1 pincée de sel").name, "sel");
    }

    #[test]
    fn names_and_notes() {
        check(
            "1 onion, finely chopped",
            ing(
                Some(1.0),
                None,
                Some("1"),
                "",
                "onion",
                Some("finely chopped"),
            ),
        );
        check(
            "2 tbsp parsley (optional)",
            ing(
                Some(2.0),
                None,
                Some("2"),
                "tbsp",
                "parsley",
                Some("optional"),
            ),
        );
        check(
            "1 (14 oz) can tomatoes",
            ing(Some(1.0), None, Some("1"), "can", "tomatoes", Some("14 oz")),
        );
        check(
            "Salz und Pfeffer nach Geschmack",
            ing(
                None,
                None,
                None,
                "",
                "Salz und Pfeffer",
                Some("nach Geschmack"),
            ),
        );
        check(
            "só ízlés szerint",
            ing(None, None, None, "", "só", Some("ízlés szerint")),
        );
        check(
            "2 large eggs",
            ing(Some(2.0), None, Some("2"), "", "large eggs", None),
        );
        check(
            "a little olive oil",
            ing(None, None, None, "", "a little olive oil", None),
        );
        check(
            "2 cloves",
            ing(Some(2.0), None, Some("2"), "", "cloves", None),
        );
        check(
            "1 cup of flour",
            ing(Some(1.0), None, Some("1"), "cup", "flour", None),
        );
        check(
            "  fresh   basil  ",
            ing(None, None, None, "", "fresh basil", None),
        );
        check("1/2", ing(None, None, None, "", "1/2", None));
    }

    #[test]
    fn parts_fit_their_bounds() {
        let long = format!("2 cups {}", "very ".repeat(70));
        let parsed = parse(&long);
        assert!(parsed.name.chars().count() <= MAX_INGREDIENT_NAME);
        assert!(parsed
            .note
            .as_ref()
            .is_some_and(|n| n.chars().count() <= MAX_NOTE));
        let huge = parse("1000000 g sugar");
        assert_eq!(huge.quantity, None);
        assert_eq!(huge.amount.as_deref(), Some("1000000"));
        assert_eq!(line(&huge), "1000000 g sugar");
        let only = parse(&"x".repeat(300));
        assert_eq!(only.name.chars().count(), 100);
        assert_eq!(only.note.map(|n| n.chars().count()), Some(200));
    }

    #[test]
    fn a_structured_ingredient_writes_a_line() {
        let i = ing(Some(0.5), None, None, "cup", "cream", None);
        assert_eq!(line(&i), "0.5 cup cream");
        let range = ing(
            Some(1.0),
            Some(2.0),
            None,
            "clove",
            "garlic",
            Some("crushed"),
        );
        assert_eq!(line(&range), "1-2 cloves garlic, crushed");
        assert_eq!(parse(&line(&range)).quantity_max, Some(2.0));
    }
}
