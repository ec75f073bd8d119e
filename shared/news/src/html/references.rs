//! HTML character references (`&amp;`, `&#8217;`, `&#x2019;`, `&eacute`), decoded as a browser
//! decodes them in text and in attribute values.
//!
//! Numeric references are decoded in full, with the WHATWG rules: the C1 controls
//! 0x80–0x9F stand for their windows-1252 characters (`&#146;` is `’`), and zero, surrogates
//! and code points past U+10FFFF become U+FFFD.
//!
//! Named references come from a table of 472 of the HTML standard's 2,125 names (2,231 entries
//! with the legacy forms without a semicolon):
//! - all 253 of HTML 4.01 and XHTML (Latin-1, symbols and Greek, `&mdash;`, `&lsquo;`,
//!   `&euro;`... and `&apos;`), which is what feed generators and CMSs write;
//! - the HTML5 names of ASCII punctuation (`&excl;`, `&num;`, `&lpar;`, `&commat;`...), the
//!   uppercase spellings (`&AMP;`, `&COPY;`, `&TRADE;`...), typographic spaces, dashes, quotes
//!   and bullets (`&hyphen;`, `&ThinSpace;`, `&rsquor;`, `&bullet;`, `&mldr;`...), fractions,
//!   `&numero;`, `&check;`, `&star;` and a few arrows;
//! - every name of a Latin Extended-A letter (`&ccaron;`, `&lstrok;`, `&scedil;`,
//!   `&odblac;`...), for the names in Central European and Turkish headlines;
//! - the 106 legacy names that also work without their semicolon (`&amp`, `&copy`, `&nbsp`,
//!   `&eacute`...), as the standard lists them.
//!
//! The other 1,653 names are MathML operators and arrows, Fraktur, script and double-struck
//! letters, Cyrillic and box drawing: feeds write those characters as themselves, and the full
//! table was a sizeable part of every bootstrap that reads feeds (issue 11). An unknown
//! reference is left as it is, as a browser leaves one.

use std::borrow::Cow;

/// Decodes the character references of text (`in_attribute` false) or of an attribute
/// value, where a legacy reference followed by `=` or a letter or digit is not one
/// (`?a=1&copy=2` keeps its `&copy=`).
pub(super) fn decode(src: &str, in_attribute: bool) -> Cow<'_, str> {
    if !src.contains('&') {
        return Cow::Borrowed(src);
    }
    let mut out = String::with_capacity(src.len());
    let mut rest = src;
    while let Some(amp) = rest.find('&') {
        let (text, reference) = rest.split_at(amp);
        out.push_str(text);
        let after = reference.get(1..).unwrap_or_default();
        let consumed = push_reference(after, in_attribute, &mut out);
        rest = after.get(consumed..).unwrap_or_default();
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Pushes the text of the reference at the start of `src` (just after an `&`) and returns
/// the number of bytes it took; with no reference there, pushes the `&` and returns 0.
fn push_reference(src: &str, in_attribute: bool, out: &mut String) -> usize {
    let bytes = src.as_bytes();
    if bytes.first() == Some(&b'#') {
        if let Some((c, len)) = numeric(bytes.get(1..).unwrap_or_default()) {
            out.push(c);
            return 1 + len;
        }
        out.push('&');
        return 0;
    }
    // Names are ASCII letters and digits; one longer than any in the table matches none.
    let run = bytes
        .iter()
        .take(LONGEST_NAME + 1)
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    let name = src.get(..run).unwrap_or_default();
    if bytes.get(run) == Some(&b';') {
        if let Some((_, c, _)) = named(name) {
            out.push(c);
            return run + 1;
        }
    }
    // Without a semicolon: the longest legacy name the letters start with (`&notit;` is
    // `¬it;`), except in an attribute value where more of the name follows (`&copy=`).
    for len in (2..=run.min(LONGEST_LEGACY_NAME)).rev() {
        let Some((_, c, true)) = src.get(..len).and_then(named) else {
            continue;
        };
        let name_goes_on = bytes
            .get(len)
            .is_some_and(|&b| b == b'=' || b.is_ascii_alphanumeric());
        if in_attribute && name_goes_on {
            break;
        }
        out.push(c);
        return len;
    }
    out.push('&');
    0
}

/// The character of the numeric reference in `src` (just after `&#`), and the bytes it took.
fn numeric(src: &[u8]) -> Option<(char, usize)> {
    let (radix, digits) = match src.first() {
        Some(b'x' | b'X') => (16, 1),
        _ => (10, 0),
    };
    let mut value: u32 = 0;
    let mut end = digits;
    while let Some(digit) = src.get(end).and_then(|&b| char::from(b).to_digit(radix)) {
        // Anything past U+10FFFF is as wrong as a larger number: stop growing there.
        value = value
            .saturating_mul(radix)
            .saturating_add(digit)
            .min(0x11_0000);
        end += 1;
    }
    if end == digits {
        return None;
    }
    if src.get(end) == Some(&b';') {
        end += 1;
    }
    Some((numeric_char(value), end))
}

/// The character a numeric reference stands for, with the WHATWG replacements.
fn numeric_char(value: u32) -> char {
    if let Some(c) = value
        .checked_sub(0x80)
        .and_then(|i| usize::try_from(i).ok())
        .and_then(|i| WINDOWS_1252.get(i))
    {
        return *c;
    }
    match value {
        0 => '\u{FFFD}',
        _ => char::from_u32(value).unwrap_or('\u{FFFD}'),
    }
}

/// What `&#128;` to `&#159;` stand for: windows-1252, as browsers read them (the five
/// code points windows-1252 leaves undefined stand for themselves).
const WINDOWS_1252: [char; 32] = [
    '\u{20AC}', '\u{81}', '\u{201A}', '\u{192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{2C6}', '\u{2030}', '\u{160}', '\u{2039}', '\u{152}', '\u{8D}', '\u{17D}', '\u{8F}',
    '\u{90}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{2DC}', '\u{2122}', '\u{161}', '\u{203A}', '\u{153}', '\u{9D}', '\u{17E}', '\u{178}',
];

/// The entry of a named reference (name without its semicolon).
fn named(name: &str) -> Option<(&'static str, char, bool)> {
    let found = NAMED
        .binary_search_by(|(entry, _, _)| (*entry).cmp(name))
        .ok()?;
    NAMED.get(found).copied()
}

/// Longest name in [`NAMED`].
const LONGEST_NAME: usize = 21;
/// Longest name in [`NAMED`] that also works without its semicolon.
const LONGEST_LEGACY_NAME: usize = 6;

/// Named references: name (without the semicolon, sorted by bytes for the binary search),
/// character (each of these names stands for one), and whether the name also works without its semicolon. Values from the HTML
/// standard's entities.json; the choice of names is in the module documentation.
#[rustfmt::skip]
const NAMED: &[(&str, char, bool)] = &[
    ("AElig", '\u{c6}', true),
    ("AMP", '\u{26}', true),
    ("Aacute", '\u{c1}', true),
    ("Abreve", '\u{102}', false),
    ("Acirc", '\u{c2}', true),
    ("Agrave", '\u{c0}', true),
    ("Alpha", '\u{391}', false),
    ("Amacr", '\u{100}', false),
    ("Aogon", '\u{104}', false),
    ("Aring", '\u{c5}', true),
    ("Atilde", '\u{c3}', true),
    ("Auml", '\u{c4}', true),
    ("Beta", '\u{392}', false),
    ("COPY", '\u{a9}', true),
    ("Cacute", '\u{106}', false),
    ("Ccaron", '\u{10c}', false),
    ("Ccedil", '\u{c7}', true),
    ("Ccirc", '\u{108}', false),
    ("Cdot", '\u{10a}', false),
    ("CenterDot", '\u{b7}', false),
    ("Chi", '\u{3a7}', false),
    ("CloseCurlyDoubleQuote", '\u{201d}', false),
    ("CloseCurlyQuote", '\u{2019}', false),
    ("Dagger", '\u{2021}', false),
    ("Dcaron", '\u{10e}', false),
    ("Delta", '\u{394}', false),
    ("Dstrok", '\u{110}', false),
    ("ENG", '\u{14a}', false),
    ("ETH", '\u{d0}', true),
    ("Eacute", '\u{c9}', true),
    ("Ecaron", '\u{11a}', false),
    ("Ecirc", '\u{ca}', true),
    ("Edot", '\u{116}', false),
    ("Egrave", '\u{c8}', true),
    ("Emacr", '\u{112}', false),
    ("Eogon", '\u{118}', false),
    ("Epsilon", '\u{395}', false),
    ("Eta", '\u{397}', false),
    ("Euml", '\u{cb}', true),
    ("GT", '\u{3e}', true),
    ("Gamma", '\u{393}', false),
    ("Gbreve", '\u{11e}', false),
    ("Gcedil", '\u{122}', false),
    ("Gcirc", '\u{11c}', false),
    ("Gdot", '\u{120}', false),
    ("Hat", '\u{5e}', false),
    ("Hcirc", '\u{124}', false),
    ("Hstrok", '\u{126}', false),
    ("IJlig", '\u{132}', false),
    ("Iacute", '\u{cd}', true),
    ("Icirc", '\u{ce}', true),
    ("Idot", '\u{130}', false),
    ("Igrave", '\u{cc}', true),
    ("Imacr", '\u{12a}', false),
    ("Iogon", '\u{12e}', false),
    ("Iota", '\u{399}', false),
    ("Itilde", '\u{128}', false),
    ("Iuml", '\u{cf}', true),
    ("Jcirc", '\u{134}', false),
    ("Kappa", '\u{39a}', false),
    ("Kcedil", '\u{136}', false),
    ("LT", '\u{3c}', true),
    ("Lacute", '\u{139}', false),
    ("Lambda", '\u{39b}', false),
    ("Lcaron", '\u{13d}', false),
    ("Lcedil", '\u{13b}', false),
    ("Lmidot", '\u{13f}', false),
    ("Lstrok", '\u{141}', false),
    ("MediumSpace", '\u{205f}', false),
    ("Mu", '\u{39c}', false),
    ("Nacute", '\u{143}', false),
    ("Ncaron", '\u{147}', false),
    ("Ncedil", '\u{145}', false),
    ("NewLine", '\u{a}', false),
    ("NoBreak", '\u{2060}', false),
    ("NonBreakingSpace", '\u{a0}', false),
    ("Ntilde", '\u{d1}', true),
    ("Nu", '\u{39d}', false),
    ("OElig", '\u{152}', false),
    ("Oacute", '\u{d3}', true),
    ("Ocirc", '\u{d4}', true),
    ("Odblac", '\u{150}', false),
    ("Ograve", '\u{d2}', true),
    ("Omacr", '\u{14c}', false),
    ("Omega", '\u{3a9}', false),
    ("Omicron", '\u{39f}', false),
    ("OpenCurlyDoubleQuote", '\u{201c}', false),
    ("OpenCurlyQuote", '\u{2018}', false),
    ("Oslash", '\u{d8}', true),
    ("Otilde", '\u{d5}', true),
    ("Ouml", '\u{d6}', true),
    ("Phi", '\u{3a6}', false),
    ("Pi", '\u{3a0}', false),
    ("Prime", '\u{2033}', false),
    ("Psi", '\u{3a8}', false),
    ("QUOT", '\u{22}', true),
    ("REG", '\u{ae}', true),
    ("Racute", '\u{154}', false),
    ("Rcaron", '\u{158}', false),
    ("Rcedil", '\u{156}', false),
    ("Rho", '\u{3a1}', false),
    ("Sacute", '\u{15a}', false),
    ("Scaron", '\u{160}', false),
    ("Scedil", '\u{15e}', false),
    ("Scirc", '\u{15c}', false),
    ("Sigma", '\u{3a3}', false),
    ("THORN", '\u{de}', true),
    ("TRADE", '\u{2122}', false),
    ("Tab", '\u{9}', false),
    ("Tau", '\u{3a4}', false),
    ("Tcaron", '\u{164}', false),
    ("Tcedil", '\u{162}', false),
    ("Theta", '\u{398}', false),
    ("ThinSpace", '\u{2009}', false),
    ("Tstrok", '\u{166}', false),
    ("Uacute", '\u{da}', true),
    ("Ubreve", '\u{16c}', false),
    ("Ucirc", '\u{db}', true),
    ("Udblac", '\u{170}', false),
    ("Ugrave", '\u{d9}', true),
    ("Umacr", '\u{16a}', false),
    ("Uogon", '\u{172}', false),
    ("Upsilon", '\u{3a5}', false),
    ("Uring", '\u{16e}', false),
    ("Utilde", '\u{168}', false),
    ("Uuml", '\u{dc}', true),
    ("Wcirc", '\u{174}', false),
    ("Xi", '\u{39e}', false),
    ("Yacute", '\u{dd}', true),
    ("Ycirc", '\u{176}', false),
    ("Yuml", '\u{178}', false),
    ("Zacute", '\u{179}', false),
    ("Zcaron", '\u{17d}', false),
    ("Zdot", '\u{17b}', false),
    ("ZeroWidthSpace", '\u{200b}', false),
    ("Zeta", '\u{396}', false),
    ("aacute", '\u{e1}', true),
    ("abreve", '\u{103}', false),
    ("acirc", '\u{e2}', true),
    ("acute", '\u{b4}', true),
    ("aelig", '\u{e6}', true),
    ("agrave", '\u{e0}', true),
    ("alefsym", '\u{2135}', false),
    ("alpha", '\u{3b1}', false),
    ("amacr", '\u{101}', false),
    ("amp", '\u{26}', true),
    ("and", '\u{2227}', false),
    ("ang", '\u{2220}', false),
    ("angst", '\u{c5}', false),
    ("aogon", '\u{105}', false),
    ("apos", '\u{27}', false),
    ("approx", '\u{2248}', false),
    ("aring", '\u{e5}', true),
    ("ast", '\u{2a}', false),
    ("asymp", '\u{2248}', false),
    ("atilde", '\u{e3}', true),
    ("auml", '\u{e4}', true),
    ("bdquo", '\u{201e}', false),
    ("beta", '\u{3b2}', false),
    ("bigstar", '\u{2605}', false),
    ("brvbar", '\u{a6}', true),
    ("bsol", '\u{5c}', false),
    ("bull", '\u{2022}', false),
    ("bullet", '\u{2022}', false),
    ("cacute", '\u{107}', false),
    ("cap", '\u{2229}', false),
    ("caret", '\u{2041}', false),
    ("ccaron", '\u{10d}', false),
    ("ccedil", '\u{e7}', true),
    ("ccirc", '\u{109}', false),
    ("cdot", '\u{10b}', false),
    ("cedil", '\u{b8}', true),
    ("cent", '\u{a2}', true),
    ("centerdot", '\u{b7}', false),
    ("check", '\u{2713}', false),
    ("checkmark", '\u{2713}', false),
    ("chi", '\u{3c7}', false),
    ("circ", '\u{2c6}', false),
    ("clubs", '\u{2663}', false),
    ("colon", '\u{3a}', false),
    ("comma", '\u{2c}', false),
    ("commat", '\u{40}', false),
    ("cong", '\u{2245}', false),
    ("copy", '\u{a9}', true),
    ("copysr", '\u{2117}', false),
    ("crarr", '\u{21b5}', false),
    ("cross", '\u{2717}', false),
    ("cup", '\u{222a}', false),
    ("curren", '\u{a4}', true),
    ("dArr", '\u{21d3}', false),
    ("dagger", '\u{2020}', false),
    ("darr", '\u{2193}', false),
    ("dash", '\u{2010}', false),
    ("dcaron", '\u{10f}', false),
    ("deg", '\u{b0}', true),
    ("delta", '\u{3b4}', false),
    ("diams", '\u{2666}', false),
    ("div", '\u{f7}', false),
    ("divide", '\u{f7}', true),
    ("dollar", '\u{24}', false),
    ("downarrow", '\u{2193}', false),
    ("dstrok", '\u{111}', false),
    ("eacute", '\u{e9}', true),
    ("ecaron", '\u{11b}', false),
    ("ecirc", '\u{ea}', true),
    ("edot", '\u{117}', false),
    ("egrave", '\u{e8}', true),
    ("emacr", '\u{113}', false),
    ("empty", '\u{2205}', false),
    ("emsp", '\u{2003}', false),
    ("emsp13", '\u{2004}', false),
    ("emsp14", '\u{2005}', false),
    ("eng", '\u{14b}', false),
    ("ensp", '\u{2002}', false),
    ("eogon", '\u{119}', false),
    ("epsilon", '\u{3b5}', false),
    ("equals", '\u{3d}', false),
    ("equiv", '\u{2261}', false),
    ("eta", '\u{3b7}', false),
    ("eth", '\u{f0}', true),
    ("euml", '\u{eb}', true),
    ("euro", '\u{20ac}', false),
    ("excl", '\u{21}', false),
    ("exist", '\u{2203}', false),
    ("female", '\u{2640}', false),
    ("flat", '\u{266d}', false),
    ("fnof", '\u{192}', false),
    ("forall", '\u{2200}', false),
    ("frac12", '\u{bd}', true),
    ("frac13", '\u{2153}', false),
    ("frac14", '\u{bc}', true),
    ("frac15", '\u{2155}', false),
    ("frac16", '\u{2159}', false),
    ("frac18", '\u{215b}', false),
    ("frac23", '\u{2154}', false),
    ("frac25", '\u{2156}', false),
    ("frac34", '\u{be}', true),
    ("frac35", '\u{2157}', false),
    ("frac38", '\u{215c}', false),
    ("frac45", '\u{2158}', false),
    ("frac56", '\u{215a}', false),
    ("frac58", '\u{215d}', false),
    ("frac78", '\u{215e}', false),
    ("frasl", '\u{2044}', false),
    ("gamma", '\u{3b3}', false),
    ("gbreve", '\u{11f}', false),
    ("gcirc", '\u{11d}', false),
    ("gdot", '\u{121}', false),
    ("ge", '\u{2265}', false),
    ("grave", '\u{60}', false),
    ("gt", '\u{3e}', true),
    ("hArr", '\u{21d4}', false),
    ("hairsp", '\u{200a}', false),
    ("half", '\u{bd}', false),
    ("harr", '\u{2194}', false),
    ("hcirc", '\u{125}', false),
    ("hearts", '\u{2665}', false),
    ("hellip", '\u{2026}', false),
    ("horbar", '\u{2015}', false),
    ("hstrok", '\u{127}', false),
    ("hyphen", '\u{2010}', false),
    ("iacute", '\u{ed}', true),
    ("icirc", '\u{ee}', true),
    ("iexcl", '\u{a1}', true),
    ("igrave", '\u{ec}', true),
    ("ijlig", '\u{133}', false),
    ("imacr", '\u{12b}', false),
    ("image", '\u{2111}', false),
    ("imath", '\u{131}', false),
    ("infin", '\u{221e}', false),
    ("inodot", '\u{131}', false),
    ("int", '\u{222b}', false),
    ("iogon", '\u{12f}', false),
    ("iota", '\u{3b9}', false),
    ("iquest", '\u{bf}', true),
    ("isin", '\u{2208}', false),
    ("itilde", '\u{129}', false),
    ("iuml", '\u{ef}', true),
    ("jcirc", '\u{135}', false),
    ("kappa", '\u{3ba}', false),
    ("kcedil", '\u{137}', false),
    ("kgreen", '\u{138}', false),
    ("lArr", '\u{21d0}', false),
    ("lacute", '\u{13a}', false),
    ("lambda", '\u{3bb}', false),
    ("lang", '\u{27e8}', false),
    ("laquo", '\u{ab}', true),
    ("larr", '\u{2190}', false),
    ("lbrace", '\u{7b}', false),
    ("lbrack", '\u{5b}', false),
    ("lcaron", '\u{13e}', false),
    ("lcedil", '\u{13c}', false),
    ("lceil", '\u{2308}', false),
    ("lcub", '\u{7b}', false),
    ("ldquo", '\u{201c}', false),
    ("ldquor", '\u{201e}', false),
    ("le", '\u{2264}', false),
    ("leftarrow", '\u{2190}', false),
    ("leftrightarrow", '\u{2194}', false),
    ("lfloor", '\u{230a}', false),
    ("lmidot", '\u{140}', false),
    ("lowast", '\u{2217}', false),
    ("lowbar", '\u{5f}', false),
    ("loz", '\u{25ca}', false),
    ("lpar", '\u{28}', false),
    ("lrm", '\u{200e}', false),
    ("lsaquo", '\u{2039}', false),
    ("lsqb", '\u{5b}', false),
    ("lsquo", '\u{2018}', false),
    ("lsquor", '\u{201a}', false),
    ("lstrok", '\u{142}', false),
    ("lt", '\u{3c}', true),
    ("macr", '\u{af}', true),
    ("male", '\u{2642}', false),
    ("mdash", '\u{2014}', false),
    ("micro", '\u{b5}', true),
    ("middot", '\u{b7}', true),
    ("minus", '\u{2212}', false),
    ("mldr", '\u{2026}', false),
    ("mu", '\u{3bc}', false),
    ("nabla", '\u{2207}', false),
    ("nacute", '\u{144}', false),
    ("napos", '\u{149}', false),
    ("natural", '\u{266e}', false),
    ("nbsp", '\u{a0}', true),
    ("ncaron", '\u{148}', false),
    ("ncedil", '\u{146}', false),
    ("ndash", '\u{2013}', false),
    ("ne", '\u{2260}', false),
    ("ni", '\u{220b}', false),
    ("nldr", '\u{2025}', false),
    ("not", '\u{ac}', true),
    ("notin", '\u{2209}', false),
    ("nsub", '\u{2284}', false),
    ("ntilde", '\u{f1}', true),
    ("nu", '\u{3bd}', false),
    ("num", '\u{23}', false),
    ("numero", '\u{2116}', false),
    ("numsp", '\u{2007}', false),
    ("oacute", '\u{f3}', true),
    ("ocirc", '\u{f4}', true),
    ("odblac", '\u{151}', false),
    ("oelig", '\u{153}', false),
    ("ograve", '\u{f2}', true),
    ("ohm", '\u{3a9}', false),
    ("oline", '\u{203e}', false),
    ("omacr", '\u{14d}', false),
    ("omega", '\u{3c9}', false),
    ("omicron", '\u{3bf}', false),
    ("oplus", '\u{2295}', false),
    ("or", '\u{2228}', false),
    ("ordf", '\u{aa}', true),
    ("ordm", '\u{ba}', true),
    ("oslash", '\u{f8}', true),
    ("otilde", '\u{f5}', true),
    ("otimes", '\u{2297}', false),
    ("ouml", '\u{f6}', true),
    ("para", '\u{b6}', true),
    ("part", '\u{2202}', false),
    ("percnt", '\u{25}', false),
    ("period", '\u{2e}', false),
    ("permil", '\u{2030}', false),
    ("perp", '\u{22a5}', false),
    ("phi", '\u{3c6}', false),
    ("phone", '\u{260e}', false),
    ("pi", '\u{3c0}', false),
    ("piv", '\u{3d6}', false),
    ("plus", '\u{2b}', false),
    ("plusmn", '\u{b1}', true),
    ("pm", '\u{b1}', false),
    ("pound", '\u{a3}', true),
    ("prime", '\u{2032}', false),
    ("prod", '\u{220f}', false),
    ("prop", '\u{221d}', false),
    ("psi", '\u{3c8}', false),
    ("puncsp", '\u{2008}', false),
    ("quest", '\u{3f}', false),
    ("quot", '\u{22}', true),
    ("rArr", '\u{21d2}', false),
    ("racute", '\u{155}', false),
    ("radic", '\u{221a}', false),
    ("rang", '\u{27e9}', false),
    ("raquo", '\u{bb}', true),
    ("rarr", '\u{2192}', false),
    ("rbrace", '\u{7d}', false),
    ("rbrack", '\u{5d}', false),
    ("rcaron", '\u{159}', false),
    ("rcedil", '\u{157}', false),
    ("rceil", '\u{2309}', false),
    ("rcub", '\u{7d}', false),
    ("rdquo", '\u{201d}', false),
    ("rdquor", '\u{201d}', false),
    ("real", '\u{211c}', false),
    ("reg", '\u{ae}', true),
    ("rfloor", '\u{230b}', false),
    ("rho", '\u{3c1}', false),
    ("rightarrow", '\u{2192}', false),
    ("rlm", '\u{200f}', false),
    ("rpar", '\u{29}', false),
    ("rsaquo", '\u{203a}', false),
    ("rsqb", '\u{5d}', false),
    ("rsquo", '\u{2019}', false),
    ("rsquor", '\u{2019}', false),
    ("sacute", '\u{15b}', false),
    ("sbquo", '\u{201a}', false),
    ("scaron", '\u{161}', false),
    ("scedil", '\u{15f}', false),
    ("scirc", '\u{15d}', false),
    ("sdot", '\u{22c5}', false),
    ("sect", '\u{a7}', true),
    ("semi", '\u{3b}', false),
    ("sharp", '\u{266f}', false),
    ("shy", '\u{ad}', true),
    ("sigma", '\u{3c3}', false),
    ("sigmaf", '\u{3c2}', false),
    ("sim", '\u{223c}', false),
    ("sol", '\u{2f}', false),
    ("spades", '\u{2660}', false),
    ("star", '\u{2606}', false),
    ("starf", '\u{2605}', false),
    ("sub", '\u{2282}', false),
    ("sube", '\u{2286}', false),
    ("sum", '\u{2211}', false),
    ("sup", '\u{2283}', false),
    ("sup1", '\u{b9}', true),
    ("sup2", '\u{b2}', true),
    ("sup3", '\u{b3}', true),
    ("supe", '\u{2287}', false),
    ("szlig", '\u{df}', true),
    ("tau", '\u{3c4}', false),
    ("tcaron", '\u{165}', false),
    ("tcedil", '\u{163}', false),
    ("there4", '\u{2234}', false),
    ("theta", '\u{3b8}', false),
    ("thetasym", '\u{3d1}', false),
    ("thinsp", '\u{2009}', false),
    ("thorn", '\u{fe}', true),
    ("tilde", '\u{2dc}', false),
    ("times", '\u{d7}', true),
    ("trade", '\u{2122}', false),
    ("tstrok", '\u{167}', false),
    ("uArr", '\u{21d1}', false),
    ("uacute", '\u{fa}', true),
    ("uarr", '\u{2191}', false),
    ("ubreve", '\u{16d}', false),
    ("ucirc", '\u{fb}', true),
    ("udblac", '\u{171}', false),
    ("ugrave", '\u{f9}', true),
    ("umacr", '\u{16b}', false),
    ("uml", '\u{a8}', true),
    ("uogon", '\u{173}', false),
    ("uparrow", '\u{2191}', false),
    ("upsih", '\u{3d2}', false),
    ("upsilon", '\u{3c5}', false),
    ("uring", '\u{16f}', false),
    ("utilde", '\u{169}', false),
    ("uuml", '\u{fc}', true),
    ("verbar", '\u{7c}', false),
    ("vert", '\u{7c}', false),
    ("wcirc", '\u{175}', false),
    ("weierp", '\u{2118}', false),
    ("xi", '\u{3be}', false),
    ("yacute", '\u{fd}', true),
    ("ycirc", '\u{177}', false),
    ("yen", '\u{a5}', true),
    ("yuml", '\u{ff}', true),
    ("zacute", '\u{17a}', false),
    ("zcaron", '\u{17e}', false),
    ("zdot", '\u{17c}', false),
    ("zeta", '\u{3b6}', false),
    ("zwj", '\u{200d}', false),
    ("zwnj", '\u{200c}', false),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The 252 names of HTML 4.01 (Latin-1, symbols, special) and XHTML's `apos`.
    const HTML4: &str = "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not
        shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14
        frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute
        Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times
        Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring
        aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute
        ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml
        fnof Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi
        Rho Sigma Tau Upsilon Phi Chi Psi Omega alpha beta gamma delta epsilon zeta eta theta
        iota kappa lambda mu nu xi omicron pi rho sigmaf sigma tau upsilon phi chi psi omega
        thetasym upsih piv bull hellip prime Prime oline frasl weierp image real trade alefsym
        larr uarr rarr darr harr crarr lArr uArr rArr dArr hArr forall part exist empty nabla
        isin notin ni prod sum minus lowast radic prop infin ang and or cap cup int there4 sim
        cong asymp ne equiv le ge sub sup nsub sube supe oplus otimes perp sdot lceil rceil
        lfloor rfloor lang rang loz spades clubs hearts diams
        quot amp lt gt OElig oelig Scaron scaron Yuml circ tilde ensp emsp thinsp zwnj zwj lrm
        rlm ndash mdash lsquo rsquo sbquo ldquo rdquo bdquo dagger Dagger permil lsaquo rsaquo
        euro apos";

    /// The names the HTML standard also reads without their semicolon.
    const LEGACY: &str = "AElig AMP Aacute Acirc Agrave Aring Atilde Auml COPY Ccedil ETH
        Eacute Ecirc Egrave Euml GT Iacute Icirc Igrave Iuml LT Ntilde Oacute Ocirc Ograve Oslash
        Otilde Ouml QUOT REG THORN Uacute Ucirc Ugrave Uuml Yacute aacute acirc acute aelig
        agrave amp aring atilde auml brvbar ccedil cedil cent copy curren deg divide eacute ecirc
        egrave eth euml frac12 frac14 frac34 gt iacute icirc iexcl igrave iquest iuml laquo lt
        macr micro middot nbsp not ntilde oacute ocirc ograve ordf ordm oslash otilde ouml para
        plusmn pound quot raquo reg sect shy sup1 sup2 sup3 szlig thorn times uacute ucirc ugrave
        uml uuml yacute yen yuml";

    #[test]
    fn the_table_is_sorted_and_its_limits_are_right() {
        assert!(NAMED.windows(2).all(|w| matches!(w, [a, b] if a.0 < b.0)));
        assert!(NAMED
            .iter()
            .all(|(name, _, _)| name.bytes().all(|b| b.is_ascii_alphanumeric())));
        let longest = |legacy_only: bool| {
            NAMED
                .iter()
                .filter(|(_, _, legacy)| *legacy || !legacy_only)
                .map(|(name, _, _)| name.len())
                .max()
        };
        assert_eq!(longest(false), Some(LONGEST_NAME));
        assert_eq!(longest(true), Some(LONGEST_LEGACY_NAME));
        assert_eq!(NAMED.len(), 472, "the module documentation gives the count");
    }

    #[test]
    fn every_html4_name_is_in_the_table() {
        let names: Vec<&str> = HTML4.split_whitespace().collect();
        assert_eq!(names.len(), 253);
        for name in names {
            assert!(named(name).is_some(), "{name}");
        }
        // HTML5's values where they differ from HTML 4's (as browsers decode them).
        assert_eq!(named("lang").map(|n| n.1), Some('\u{27E8}'));
    }

    #[test]
    fn the_legacy_names_are_the_standards() {
        let legacy: Vec<&str> = LEGACY.split_whitespace().collect();
        assert_eq!(legacy.len(), 106);
        let flagged: Vec<&str> = NAMED
            .iter()
            .filter(|(_, _, legacy)| *legacy)
            .map(|(name, _, _)| *name)
            .collect();
        assert_eq!(flagged, legacy);
    }

    #[test]
    fn a_reference_cut_short_or_unknown_stays() {
        for text in [
            "&",
            "a&",
            "&#",
            "&#x",
            "&am",
            "&unknown;",
            "&;",
            "&é;",
            "&\u{1F600}",
        ] {
            assert_eq!(decode(text, false), text);
            assert_eq!(decode(text, true), text);
        }
        assert!(matches!(decode("no references", false), Cow::Borrowed(_)));
    }
}
