//! An HTML tokenizer for extraction: text nodes, start tags and the ends of elements,
//! exactly as lol_html 3.0 (on which the extraction was first built) delivered them to
//! the extraction handlers, at several times its speed.
//!
//! What is reproduced, state by state, from lol_html:
//! - its lexer: data, RCDATA, RAWTEXT, script data (with the escaped and double
//!   escaped states), PLAINTEXT and CDATA; tags and attributes; comments, bogus
//!   comments and doctypes (which yield nothing); `<` that opens no markup is text;
//!   markup left open at the end of the input is dropped, text is kept;
//! - its quirks: after `<title a=>` (a start tag ending right after `=`) the lexer
//!   goes on in the data state, but the text keeps the kind the tag asked for;
//! - its tree-builder simulation: which start tags switch the text kind (`title`,
//!   `textarea`, `script`, `style`, ...), the SVG/MathML namespace stack with its
//!   integration points and breakout tags, CDATA only where the current node is
//!   foreign (in SVG or MathML, and at an integration point until an element opens in
//!   it, where lol_html read a bogus comment);
//! - its selector VM's stack of open elements, which decides when an element ends:
//!   every start tag in HTML but the void ones (or in foreign content, every one not
//!   self-closing) is pushed; an end tag pops up to the nearest open element of the
//!   same name (ASCII case-insensitive), ending each popped element innermost first;
//!   an end tag with no open element of its name ends nothing; elements still open
//!   at the end of the input never end;
//! - its memory limit as far as it could be reached: the start tag that would open a
//!   2^17-th element stops the parse (what was delivered before is kept).
//!
//! The input is UTF-8: the caller decodes the payload first, where lol_html tokenized
//! the raw bytes. In the ASCII-compatible encodings that finds the same tokens: the
//! bytes that delimit tokens (`<`, `>`, `/`, `=`, quotes, `!`, `-`, `?`, white space)
//! are below 0x40, which no multi-byte character uses, and names start with an ASCII
//! letter, which no multi-byte character does. (In theory only: a `]` trail byte of a
//! Shift_JIS, Big5 or GBK character just before `]>` ended an SVG or MathML CDATA
//! section for lol_html; a malformed GB18030 sequence cut off by markup decodes to one
//! more character.) Text is handed over a whole node at a time (all the text between
//! two pieces of markup), where lol_html cut it into chunks.

use memchr::{memchr, memchr2};

/// How the text of a node is to be read (lol_html's `TextType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TextKind {
    /// Ordinary text; character references are to be decoded.
    Data,
    /// The text of `<title>` or `<textarea>`; character references are to be decoded.
    RcData,
    /// The text of `<style>`, `<iframe>`, `<noscript>`, `<xmp>`, `<noembed>`,
    /// `<noframes>`.
    RawText,
    /// The text of `<script>`.
    ScriptData,
    /// Everything after `<plaintext>`.
    PlainText,
    /// A `<![CDATA[ ]]>` section in SVG or MathML.
    CData,
}

/// The namespace an element is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Namespace {
    Html,
    Svg,
    MathMl,
}

/// lol_html's `LocalNameHash`: a tag name of up to 12 or 13 ASCII letters and digits 1
/// to 6, packed five bits a character, case-insensitive; [`NO_HASH`] for any other
/// name. Equal hashes mean equal names (ignoring ASCII case).
pub(super) type NameHash = u64;

/// The hash of a name that cannot be hashed.
pub(super) const NO_HASH: NameHash = !0;

/// [`NameHash`] of `name`.
pub(super) const fn name_hash(name: &[u8]) -> NameHash {
    let mut h = 0;
    let mut i = 0;
    while i < name.len() {
        h = hash_update(h, name[i]);
        i += 1;
    }
    h
}

/// The hash with one more character.
#[inline]
const fn hash_update(h: NameHash, ch: u8) -> NameHash {
    if h >> 59 != 0 {
        // No room left (or already `NO_HASH`, which has every bit set).
        return NO_HASH;
    }
    match ch {
        b'a'..=b'z' | b'A'..=b'Z' => (h << 5) | ((ch as u64 & 0x1F) + 5),
        b'1'..=b'6' => (h << 5) | ((ch as u64 & 0x0F) - 1),
        _ => NO_HASH,
    }
}

/// Tag name hashes.
pub(super) mod tag {
    use super::{name_hash, NameHash};

    macro_rules! tags {
        ($($name:ident = $s:literal),* $(,)?) => {
            $(pub(in super::super) const $name: NameHash = name_hash($s);)*
        };
    }

    tags! {
        A = b"a", ADDRESS = b"address", AREA = b"area", ARTICLE = b"article",
        ASIDE = b"aside", AUDIO = b"audio", B = b"b", BASE = b"base",
        BASEFONT = b"basefont", BGSOUND = b"bgsound", BIG = b"big",
        BLOCKQUOTE = b"blockquote", BODY = b"body", BR = b"br", BUTTON = b"button",
        CANVAS = b"canvas", CAPTION = b"caption", CENTER = b"center", CODE = b"code",
        COL = b"col", DD = b"dd", DESC = b"desc", DETAILS = b"details",
        DIALOG = b"dialog", DIR = b"dir", DIV = b"div", DL = b"dl", DT = b"dt",
        EM = b"em", EMBED = b"embed", FIELDSET = b"fieldset",
        FIGCAPTION = b"figcaption", FIGURE = b"figure", FONT = b"font",
        FOOTER = b"footer", FOREIGNOBJECT = b"foreignobject", FORM = b"form",
        FRAME = b"frame", H1 = b"h1", H2 = b"h2", H3 = b"h3", H4 = b"h4", H5 = b"h5",
        H6 = b"h6", HEAD = b"head", HEADER = b"header", HGROUP = b"hgroup",
        HR = b"hr", HTML = b"html", I = b"i", IFRAME = b"iframe", IMG = b"img",
        INPUT = b"input", KEYGEN = b"keygen", LEGEND = b"legend", LI = b"li",
        LINK = b"link", LISTING = b"listing", MAIN = b"main", MATH = b"math",
        MENU = b"menu", META = b"meta", MI = b"mi", MN = b"mn", MO = b"mo",
        MS = b"ms", MTEXT = b"mtext", NAV = b"nav", NOBR = b"nobr",
        NOEMBED = b"noembed", NOFRAMES = b"noframes", NOSCRIPT = b"noscript",
        OBJECT = b"object", OL = b"ol", OPTGROUP = b"optgroup", OPTION = b"option",
        P = b"p", PARAM = b"param", PLAINTEXT = b"plaintext", PRE = b"pre",
        RUBY = b"ruby", S = b"s", SCRIPT = b"script", SECTION = b"section",
        SELECT = b"select", SMALL = b"small", SOURCE = b"source", SPAN = b"span",
        STRIKE = b"strike", STRONG = b"strong", STYLE = b"style", SUB = b"sub",
        SUMMARY = b"summary", SUP = b"sup", SVG = b"svg", TABLE = b"table",
        TBODY = b"tbody", TD = b"td", TEMPLATE = b"template", TEXTAREA = b"textarea",
        TFOOT = b"tfoot", TH = b"th", THEAD = b"thead", TITLE = b"title", TR = b"tr",
        TRACK = b"track", TT = b"tt", U = b"u", UL = b"ul", VAR = b"var",
        VIDEO = b"video", WBR = b"wbr", XMP = b"xmp",
    }
}

/// A start tag, as the handler sees it.
pub(super) struct StartTag<'a> {
    input: &'a str,
    hash: NameHash,
    attrs: &'a [Attr],
}

impl<'a> StartTag<'a> {
    /// The tag name's [`NameHash`] (compare with the constants in [`tag`]).
    pub fn name(&self) -> NameHash {
        self.hash
    }

    /// The raw value (character references not decoded) of the first attribute named
    /// `name` (ASCII lowercase), `""` when it has none; `None` if there is no such
    /// attribute.
    pub fn attr(&self, name: &str) -> Option<&'a str> {
        self.attrs
            .iter()
            .find(|a| self.input[a.name.0..a.name.1].eq_ignore_ascii_case(name))
            .map(|a| a.value.map_or("", |(s, e)| &self.input[s..e]))
    }
}

/// What the tokenizer reports to.
pub(super) trait Handler {
    /// What the handler keeps about an element until the element ends.
    type Mark;

    /// A whole text node (never empty).
    fn text(&mut self, text: &str, kind: TextKind);

    /// A start tag; the mark returned is handed back to
    /// [`end_element`](Handler::end_element) when the element ends, if it can have
    /// content and an end (lol_html's `can_have_content`: not a void HTML element, not
    /// a self-closing foreign one).
    fn start_tag(&mut self, tag: &StartTag<'_>) -> Option<Self::Mark>;

    /// The element of a start tag that returned `mark` ended.
    fn end_element(&mut self, mark: Self::Mark);

    /// An end tag `</br>`, which HTML5 parses as a `<br>` (a line break).
    fn br_end_tag(&mut self) {}

    /// The parse stops here: one more element would be open than the cap allows.
    fn open_element_cap(&mut self) {}
}

/// Most elements open at once (lol_html's memory limit allowed 2^17).
const MAX_OPEN_ELEMENTS: usize = 1 << 17;

/// Tokenizes `input`, reporting to `handler`.
pub(super) fn tokenize<H: Handler>(input: &str, handler: &mut H) {
    let mut t = Tokenizer {
        input,
        b: input.as_bytes(),
        handler,
        pos: 0,
        text_start: 0,
        kind: TextKind::Data,
        last_start: 0,
        cdata_allowed: false,
        ns_stack: vec![Namespace::Html],
        open: Vec::new(),
        open_count: [0; OPEN_SLOTS],
        attrs: Vec::new(),
    };
    t.run();
}

/// An attribute: byte ranges of its name and value in the input.
struct Attr {
    name: (usize, usize),
    value: Option<(usize, usize)>,
}

/// An open element.
struct Open<M> {
    hash: NameHash,
    /// Where the name is in the input (compared when `hash` is [`NO_HASH`]).
    name: (usize, usize),
    mark: Option<M>,
}

/// Slots of the counts of open elements by name, which turn most stray end tags away
/// without a walk down the stack.
const OPEN_SLOTS: usize = 256;

/// Which lexer states read text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Data,
    /// RCDATA and RAWTEXT: the same states, only the kind of their text differs.
    RawLike,
    ScriptData,
    PlainText,
    CData,
}

impl Mode {
    /// The states lol_html reads text of `kind` with (`next_text_parsing_state`).
    fn of(kind: TextKind) -> Mode {
        match kind {
            TextKind::Data => Mode::Data,
            TextKind::RcData | TextKind::RawText => Mode::RawLike,
            TextKind::ScriptData => Mode::ScriptData,
            TextKind::PlainText => Mode::PlainText,
            TextKind::CData => Mode::CData,
        }
    }
}

/// The script data states that read on past `<!--` (the ones that only look for the
/// end tag are [`Tokenizer::script_data`]'s plain loop).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    Data,
    LessThan,
    EndTagOpen,
    EscapeStart,
    Escaped,
    EscapedDashDash,
    EscapedLessThan,
    EscapedEndTagOpen,
    DoubleEscapeStart,
    DoubleEscaped,
    DoubleEscapedDashDash,
    DoubleEscapedLessThan,
    DoubleEscapeEnd,
}

struct Tokenizer<'a, 'h, H: Handler> {
    input: &'a str,
    b: &'a [u8],
    handler: &'h mut H,
    /// Where the lexer goes on reading.
    pos: usize,
    /// Where the pending text node starts.
    text_start: usize,
    /// The kind of the text being read (lol_html's `last_text_type`).
    kind: TextKind,
    /// The hash of the last start tag's name (for the appropriate end tag).
    last_start: NameHash,
    cdata_allowed: bool,
    /// The tree-builder simulation's namespaces; never empty.
    ns_stack: Vec<Namespace>,
    open: Vec<Open<H::Mark>>,
    open_count: [u32; OPEN_SLOTS],
    /// The attributes of the start tag being read (reused).
    attrs: Vec<Attr>,
}

#[inline]
fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\n' | b'\r' | b'\t' | b'\x0C')
}

#[inline]
fn starts_with_ignore_case(b: &[u8], at: usize, upper: &[u8]) -> bool {
    b.get(at..at + upper.len())
        .is_some_and(|s| s.eq_ignore_ascii_case(upper))
}

/// How a tag is closed.
struct TagEnd {
    /// Just past the `>`.
    end: usize,
    self_closing: bool,
    /// lol_html's quirk: a tag ending with `=>` leaves the lexer in the data state.
    data_state: bool,
}

impl<'a, H: Handler> Tokenizer<'a, '_, H> {
    fn run(&mut self) {
        let mut mode = Mode::Data;
        loop {
            let next = match mode {
                Mode::Data => self.data(),
                Mode::RawLike => self.raw_like(),
                Mode::ScriptData => self.script_data(),
                Mode::PlainText => self.text_to_end(),
                Mode::CData => self.cdata(),
            };
            match next {
                Some(m) => mode = m,
                None => return,
            }
        }
    }

    /// Hands over the pending text node, which ends at `end`.
    #[inline]
    fn flush_text(&mut self, end: usize) {
        if end > self.text_start {
            self.handler
                .text(&self.input[self.text_start..end], self.kind);
        }
    }

    /// Markup from `start` to `end` (exclusive): ends the pending text node.
    #[inline]
    fn markup(&mut self, start: usize, end: usize) {
        self.flush_text(start);
        self.text_start = end;
        self.pos = end;
    }

    /// The input ends in text.
    fn text_to_end(&mut self) -> Option<Mode> {
        self.flush_text(self.b.len());
        None
    }

    /// The input ends inside markup starting at `start`: dropped.
    fn markup_to_end(&mut self, start: usize) -> Option<Mode> {
        self.flush_text(start);
        None
    }

    fn data(&mut self) -> Option<Mode> {
        let b = self.b;
        loop {
            let Some(i) = memchr(b'<', &b[self.pos..]) else {
                return self.text_to_end();
            };
            let lt = self.pos + i;
            let Some(&c) = b.get(lt + 1) else {
                return self.text_to_end();
            };
            match c {
                b'a'..=b'z' | b'A'..=b'Z' => return self.tag(lt, lt + 1, false),
                b'!' => return self.markup_declaration(lt),
                b'/' => match b.get(lt + 2) {
                    None => return self.text_to_end(),
                    Some(c) if c.is_ascii_alphabetic() => return self.tag(lt, lt + 2, true),
                    Some(b'>') => {
                        self.markup(lt, lt + 3);
                        return Some(Mode::Data);
                    }
                    Some(_) => return self.bogus_comment(lt, lt + 2),
                },
                b'?' => return self.bogus_comment(lt, lt + 2),
                // Not markup: the `<` is text.
                _ => self.pos = lt + 1,
            }
        }
    }

    /// `<!` at `lt`.
    fn markup_declaration(&mut self, lt: usize) -> Option<Mode> {
        let b = self.b;
        let p = lt + 2;
        if b[p..].starts_with(b"--") {
            return self.comment(lt, p + 2);
        }
        if starts_with_ignore_case(b, p, b"DOCTYPE") {
            // Every doctype state ends at the first `>`.
            return self.bogus_comment(lt, p + 7);
        }
        if b[p..].starts_with(b"[CDATA[") {
            if !self.cdata_allowed {
                return self.bogus_comment(lt, p + 7);
            }
            self.markup(lt, p + 7);
            self.kind = TextKind::CData;
            return Some(Mode::CData);
        }
        self.bogus_comment(lt, p)
    }

    /// Markup from `lt` to the first `>` at or after `from`.
    fn bogus_comment(&mut self, lt: usize, from: usize) -> Option<Mode> {
        match memchr(b'>', self.b.get(from..).unwrap_or_default()) {
            Some(i) => {
                self.markup(lt, from + i + 1);
                Some(Mode::Data)
            }
            None => self.markup_to_end(lt),
        }
    }

    /// `<!--` at `lt`, its text starting at `from`: it ends at `<!-->`, `<!--->` or the
    /// first `-->` or `--!>` (which is where lol_html's comment states end it).
    fn comment(&mut self, lt: usize, from: usize) -> Option<Mode> {
        let b = self.b;
        let gt = if b.get(from) == Some(&b'>') {
            Some(from)
        } else if b[from..].starts_with(b"->") {
            Some(from + 1)
        } else {
            let mut i = from;
            loop {
                let Some(d) = memchr(b'-', &b[i..]) else {
                    break None;
                };
                let d = i + d;
                if b.get(d + 1) == Some(&b'-') {
                    match b.get(d + 2) {
                        Some(b'>') => break Some(d + 2),
                        Some(b'!') if b.get(d + 3) == Some(&b'>') => break Some(d + 3),
                        _ => {}
                    }
                }
                i = d + 1;
            }
        };
        match gt {
            Some(gt) => {
                self.markup(lt, gt + 1);
                Some(Mode::Data)
            }
            None => self.markup_to_end(lt),
        }
    }

    /// A tag at `lt` whose name starts at `name_start` (an ASCII letter).
    fn tag(&mut self, lt: usize, name_start: usize, end_tag: bool) -> Option<Mode> {
        let b = self.b;
        let mut hash = 0;
        let mut i = name_start;
        while i < b.len() {
            let c = b[i];
            if is_ws(c) || c == b'/' || c == b'>' {
                break;
            }
            hash = hash_update(hash, c);
            i += 1;
        }
        if i == b.len() {
            return self.markup_to_end(lt);
        }
        self.tag_after_name(lt, (name_start, i), hash, end_tag)
    }

    /// Reads a tag from the end of its name (at `name.1`: white space, `/` or `>`) and
    /// processes it.
    fn tag_after_name(
        &mut self,
        lt: usize,
        name: (usize, usize),
        hash: NameHash,
        end_tag: bool,
    ) -> Option<Mode> {
        self.attrs.clear();
        let Some(end) = self.attributes(name.1, end_tag) else {
            return self.markup_to_end(lt);
        };
        self.markup(lt, end.end);
        if end_tag {
            self.end_tag(hash, name);
            Some(Mode::Data)
        } else {
            self.start_tag(hash, name, end)
        }
    }

    /// lol_html's attribute states from `i` (the character after the tag name); `None`
    /// when the input ends first. Attributes of start tags go to `self.attrs`.
    fn attributes(&mut self, mut i: usize, end_tag: bool) -> Option<TagEnd> {
        #[derive(Clone, Copy)]
        enum S {
            BeforeName,
            Name,
            AfterName,
            BeforeValue,
            SelfClosing,
        }
        let b = self.b;
        let n = b.len();
        let done = |end, self_closing, data_state| {
            Some(TagEnd {
                end,
                self_closing,
                data_state,
            })
        };
        let mut s = match b[i] {
            b'>' => return done(i + 1, false, false),
            b'/' => S::SelfClosing,
            _ => S::BeforeName,
        };
        i += 1;
        let mut name = (0, 0);
        loop {
            match s {
                S::BeforeName => {
                    while i < n && is_ws(b[i]) {
                        i += 1;
                    }
                    match *b.get(i)? {
                        b'/' => s = S::SelfClosing,
                        b'>' => return done(i + 1, false, false),
                        _ => {
                            name.0 = i;
                            s = S::Name;
                        }
                    }
                    i += 1;
                }
                S::Name => {
                    while i < n && !matches!(b[i], b'=' | b'/' | b'>') && !is_ws(b[i]) {
                        i += 1;
                    }
                    let c = *b.get(i)?;
                    name.1 = i;
                    match c {
                        b'=' => s = S::BeforeValue,
                        b'/' => {
                            self.push_attr(end_tag, name, None);
                            s = S::SelfClosing;
                        }
                        b'>' => {
                            self.push_attr(end_tag, name, None);
                            return done(i + 1, false, false);
                        }
                        _ => s = S::AfterName,
                    }
                    i += 1;
                }
                S::AfterName => {
                    while i < n && is_ws(b[i]) {
                        i += 1;
                    }
                    match *b.get(i)? {
                        b'/' => {
                            self.push_attr(end_tag, name, None);
                            s = S::SelfClosing;
                        }
                        b'=' => s = S::BeforeValue,
                        b'>' => {
                            self.push_attr(end_tag, name, None);
                            return done(i + 1, false, false);
                        }
                        _ => {
                            self.push_attr(end_tag, name, None);
                            name.0 = i;
                            s = S::Name;
                        }
                    }
                    i += 1;
                }
                S::BeforeValue => {
                    while i < n && is_ws(b[i]) {
                        i += 1;
                    }
                    match *b.get(i)? {
                        q @ (b'"' | b'\'') => {
                            let close = i + 1 + memchr(q, &b[i + 1..])?;
                            self.push_attr(end_tag, name, Some((i + 1, close)));
                            i = close + 1;
                            s = S::BeforeName;
                        }
                        b'>' => {
                            self.push_attr(end_tag, name, None);
                            return done(i + 1, false, true);
                        }
                        _ => {
                            let start = i;
                            while i < n && b[i] != b'>' && !is_ws(b[i]) {
                                i += 1;
                            }
                            let c = *b.get(i)?;
                            self.push_attr(end_tag, name, Some((start, i)));
                            if c == b'>' {
                                return done(i + 1, false, false);
                            }
                            i += 1;
                            s = S::BeforeName;
                        }
                    }
                }
                S::SelfClosing => {
                    if *b.get(i)? == b'>' {
                        return done(i + 1, true, false);
                    }
                    // Reconsumed in the before-attribute-name state.
                    s = S::BeforeName;
                }
            }
        }
    }

    #[inline]
    fn push_attr(&mut self, end_tag: bool, name: (usize, usize), value: Option<(usize, usize)>) {
        if !end_tag {
            self.attrs.push(Attr { name, value });
        }
    }

    fn ns(&self) -> Namespace {
        *self.ns_stack.last().unwrap_or(&Namespace::Html)
    }

    fn enter_ns(&mut self, ns: Namespace) {
        self.ns_stack.push(ns);
        self.cdata_allowed = ns != Namespace::Html;
    }

    fn leave_ns(&mut self) {
        // The bottom `Html` is never left (lol_html only leaves a namespace it entered).
        if self.ns_stack.len() > 1 {
            self.ns_stack.pop();
        }
        self.cdata_allowed = self.ns() != Namespace::Html;
    }

    /// Whether a start tag attribute is named `name` (ASCII case-insensitive).
    fn has_attr(&self, name: &str) -> bool {
        self.attrs
            .iter()
            .any(|a| self.input[a.name.0..a.name.1].eq_ignore_ascii_case(name))
    }

    fn name_is(&self, name: (usize, usize), s: &str) -> bool {
        self.input[name.0..name.1].eq_ignore_ascii_case(s)
    }

    /// The tree-builder simulation's response to a start tag: the kind of the text
    /// that follows, if the tag switches it.
    fn start_tag_feedback(
        &mut self,
        hash: NameHash,
        name: (usize, usize),
        self_closing: bool,
    ) -> Option<TextKind> {
        use tag::*;
        // The element opened is the current node: HTML's forbids CDATA, a foreign one
        // allows it (HTML5's "adjusted current node"); `enter_ns` and the integration
        // points below say which.
        self.cdata_allowed = self.ns() != Namespace::Html;
        if hash == SVG {
            self.enter_ns(Namespace::Svg);
        } else if hash == MATH {
            self.enter_ns(Namespace::MathMl);
        } else if self.ns() != Namespace::Html {
            let ns = self.ns();
            if matches!(
                hash,
                B | BIG
                    | BLOCKQUOTE
                    | BODY
                    | BR
                    | CENTER
                    | CODE
                    | DD
                    | DIV
                    | DL
                    | DT
                    | EM
                    | EMBED
                    | H1
                    | H2
                    | H3
                    | H4
                    | H5
                    | H6
                    | HEAD
                    | HR
                    | I
                    | IMG
                    | LI
                    | LISTING
                    | MENU
                    | META
                    | NOBR
                    | OL
                    | P
                    | PRE
                    | RUBY
                    | S
                    | SMALL
                    | SPAN
                    | STRONG
                    | STRIKE
                    | SUB
                    | SUP
                    | TABLE
                    | TT
                    | U
                    | UL
                    | VAR
            ) {
                self.leave_ns();
            } else if ns == Namespace::Svg && matches!(hash, DESC | TITLE | FOREIGNOBJECT)
                || ns == Namespace::MathMl && matches!(hash, MI | MO | MN | MS | MTEXT)
            {
                if !self_closing {
                    self.enter_ns(Namespace::Html);
                    // Its content is parsed as HTML, but until an element opens inside
                    // it the current node is the foreign integration point itself.
                    self.cdata_allowed = true;
                }
            } else if hash == FONT {
                if self.has_attr("color") || self.has_attr("size") || self.has_attr("face") {
                    self.leave_ns();
                }
            } else if hash == NO_HASH
                && ns == Namespace::MathMl
                && !self_closing
                && self.name_is(name, "annotation-xml")
            {
                let html = self.attrs.iter().any(|a| {
                    a.value.is_some_and(|(s, e)| {
                        let v = &self.input[s..e];
                        self.input[a.name.0..a.name.1].eq_ignore_ascii_case("encoding")
                            && (v.eq_ignore_ascii_case("text/html")
                                || v.eq_ignore_ascii_case("application/xhtml+xml"))
                    })
                });
                if html {
                    self.enter_ns(Namespace::Html);
                    self.cdata_allowed = true;
                }
            }
        } else {
            return match hash {
                TEXTAREA | TITLE => Some(TextKind::RcData),
                PLAINTEXT => Some(TextKind::PlainText),
                SCRIPT => Some(TextKind::ScriptData),
                STYLE | IFRAME | XMP | NOEMBED | NOFRAMES | NOSCRIPT => Some(TextKind::RawText),
                _ => None,
            };
        }
        None
    }

    /// The tree-builder simulation's response to an end tag.
    fn end_tag_feedback(&mut self, hash: NameHash, name: (usize, usize)) {
        use tag::*;
        let ns = self.ns();
        if ns == Namespace::Html {
            let len = self.ns_stack.len();
            if len < 2 {
                return;
            }
            let prev = self.ns_stack[len - 2];
            if prev == Namespace::MathMl && matches!(hash, MI | MO | MN | MS | MTEXT)
                || prev == Namespace::Svg && matches!(hash, DESC | TITLE | FOREIGNOBJECT)
                || hash == NO_HASH
                    && prev == Namespace::MathMl
                    && self.name_is(name, "annotation-xml")
            {
                self.leave_ns();
            }
        } else if ns == Namespace::Svg && hash == SVG
            || ns == Namespace::MathMl && hash == MATH
            || matches!(hash, P | BR)
        {
            self.leave_ns();
        }
    }

    fn start_tag(&mut self, hash: NameHash, name: (usize, usize), end: TagEnd) -> Option<Mode> {
        use tag::*;
        let switch = self.start_tag_feedback(hash, name, end.self_closing);
        self.kind = switch.unwrap_or(TextKind::Data);
        self.last_start = hash;
        let ns = self.ns();
        let can_have_content = match ns {
            Namespace::Html => !matches!(
                hash,
                AREA | BASE
                    | BASEFONT
                    | BGSOUND
                    | BR
                    | COL
                    | EMBED
                    | HR
                    | IMG
                    | INPUT
                    | KEYGEN
                    | LINK
                    | META
                    | PARAM
                    | SOURCE
                    | TRACK
                    | WBR
            ),
            _ => !end.self_closing,
        };
        if can_have_content && self.open.len() >= MAX_OPEN_ELEMENTS {
            self.handler.open_element_cap();
            return None;
        }
        let tag = StartTag {
            input: self.input,
            hash,
            attrs: &self.attrs,
        };
        let mark = self.handler.start_tag(&tag);
        if can_have_content {
            self.open_count[self.slot(hash, name)] += 1;
            self.open.push(Open { hash, name, mark });
        }
        Some(if end.data_state {
            Mode::Data
        } else {
            Mode::of(self.kind)
        })
    }

    fn end_tag(&mut self, hash: NameHash, name: (usize, usize)) {
        self.end_tag_feedback(hash, name);
        self.kind = TextKind::Data;
        if hash == tag::BR {
            self.handler.br_end_tag();
            return;
        }
        if self.open_count[self.slot(hash, name)] == 0 {
            return;
        }
        let b = self.b;
        let Some(at) = self.open.iter().rposition(|o| {
            o.hash == hash
                && (hash != NO_HASH
                    || b[o.name.0..o.name.1].eq_ignore_ascii_case(&b[name.0..name.1]))
        }) else {
            return;
        };
        while self.open.len() > at {
            let Some(o) = self.open.pop() else { break };
            let slot = self.slot(o.hash, o.name);
            self.open_count[slot] -= 1;
            if let Some(m) = o.mark {
                self.handler.end_element(m);
            }
        }
    }

    /// The slot of `open_count` for a name.
    fn slot(&self, hash: NameHash, name: (usize, usize)) -> usize {
        let h = if hash != NO_HASH {
            hash
        } else {
            // FNV-1a of the lowercased name.
            self.b[name.0..name.1]
                .iter()
                .fold(0xcbf2_9ce4_8422_2325u64, |h, &c| {
                    (h ^ u64::from(c.to_ascii_lowercase())).wrapping_mul(0x100_0000_01b3)
                })
        };
        (h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize % OPEN_SLOTS
    }

    /// RCDATA and RAWTEXT: text up to the appropriate end tag.
    fn raw_like(&mut self) -> Option<Mode> {
        let b = self.b;
        loop {
            let Some(i) = memchr(b'<', &b[self.pos..]) else {
                return self.text_to_end();
            };
            let lt = self.pos + i;
            match b.get(lt + 1) {
                None => return self.text_to_end(),
                Some(b'/') => {}
                Some(_) => {
                    self.pos = lt + 1;
                    continue;
                }
            }
            match self.appropriate_end_tag(lt)? {
                Ok(mode) => return mode,
                Err(resume) => self.pos = resume,
            }
        }
    }

    /// `</` at `lt` in RCDATA, RAWTEXT or script data: `Ok` with where to go on if it
    /// starts the appropriate end tag, `Err` with where the text goes on otherwise;
    /// `None` when the input ends (in text).
    #[allow(clippy::type_complexity)]
    fn appropriate_end_tag(&mut self, lt: usize) -> Option<Result<Option<Mode>, usize>> {
        let b = self.b;
        match b.get(lt + 2) {
            None => return self.text_to_end_none(),
            Some(c) if c.is_ascii_alphabetic() => {}
            Some(_) => return Some(Err(lt + 2)),
        }
        let mut hash = 0;
        let mut j = lt + 2;
        while j < b.len() && b[j].is_ascii_alphabetic() {
            hash = hash_update(hash, b[j]);
            j += 1;
        }
        let Some(&c) = b.get(j) else {
            return self.text_to_end_none();
        };
        if (is_ws(c) || c == b'/' || c == b'>') && hash == self.last_start {
            Some(Ok(self.tag_after_name(lt, (lt + 2, j), hash, true)))
        } else {
            Some(Err(j))
        }
    }

    /// Script data, with lol_html's escape states (`<!--` ... `<script>` ... `-->`).
    fn script_data(&mut self) -> Option<Mode> {
        let b = self.b;
        let n = b.len();
        let mut i = self.pos;
        let mut s = Script::Data;
        loop {
            // `i` is where the next character is read; at the end of the input the
            // text runs to the end.
            match s {
                Script::Data => {
                    let Some(k) = memchr(b'<', &b[i..]) else {
                        return self.text_to_end();
                    };
                    i += k + 1;
                    s = Script::LessThan;
                }
                Script::LessThan => match *b.get(i).or_else(|| self.text_to_end_none())? {
                    b'/' => {
                        i += 1;
                        s = Script::EndTagOpen;
                    }
                    b'!' => {
                        i += 1;
                        s = Script::EscapeStart;
                    }
                    _ => s = Script::Data,
                },
                Script::EndTagOpen | Script::EscapedEndTagOpen => {
                    match self.appropriate_end_tag(i - 2)? {
                        Ok(mode) => return mode,
                        Err(resume) => i = resume,
                    }
                    s = if s == Script::EndTagOpen {
                        Script::Data
                    } else {
                        Script::Escaped
                    };
                }
                Script::EscapeStart => {
                    if b[i..].starts_with(b"--") {
                        i += 2;
                        s = Script::EscapedDashDash;
                    } else if i == n {
                        return self.text_to_end();
                    } else {
                        s = Script::Data;
                    }
                }
                Script::EscapedDashDash => match *b.get(i).or_else(|| self.text_to_end_none())? {
                    b'-' => i += 1,
                    b'<' => {
                        i += 1;
                        s = Script::EscapedLessThan;
                    }
                    b'>' => s = Script::Data,
                    _ => {
                        i += 1;
                        s = Script::Escaped;
                    }
                },
                Script::Escaped | Script::DoubleEscaped => {
                    let Some(k) = memchr2(b'-', b'<', &b[i..]) else {
                        return self.text_to_end();
                    };
                    let p = i + k;
                    let escaped = s == Script::Escaped;
                    if b[p] == b'<' {
                        i = p + 1;
                        s = if escaped {
                            Script::EscapedLessThan
                        } else {
                            Script::DoubleEscapedLessThan
                        };
                    } else if b.get(p + 1) == Some(&b'-') {
                        i = p + 2;
                        s = if escaped {
                            Script::EscapedDashDash
                        } else {
                            Script::DoubleEscapedDashDash
                        };
                    } else {
                        i = p + 1;
                    }
                }
                Script::EscapedLessThan => {
                    if starts_with_ignore_case(b, i, b"SCRIPT") {
                        i += 6;
                        s = Script::DoubleEscapeStart;
                    } else {
                        match *b.get(i).or_else(|| self.text_to_end_none())? {
                            b'/' => {
                                i += 1;
                                s = Script::EscapedEndTagOpen;
                            }
                            _ => s = Script::Escaped,
                        }
                    }
                }
                Script::DoubleEscapeStart => {
                    let c = *b.get(i).or_else(|| self.text_to_end_none())?;
                    if is_ws(c) || c == b'/' || c == b'>' {
                        i += 1;
                        s = Script::DoubleEscaped;
                    } else {
                        s = Script::Escaped;
                    }
                }
                Script::DoubleEscapedDashDash => {
                    match *b.get(i).or_else(|| self.text_to_end_none())? {
                        b'-' => i += 1,
                        b'<' => {
                            i += 1;
                            s = Script::DoubleEscapedLessThan;
                        }
                        b'>' => s = Script::Data,
                        _ => {
                            i += 1;
                            s = Script::DoubleEscaped;
                        }
                    }
                }
                Script::DoubleEscapedLessThan => {
                    if *b.get(i).or_else(|| self.text_to_end_none())? == b'/' {
                        i += 1;
                        if starts_with_ignore_case(b, i, b"SCRIPT") {
                            i += 6;
                            s = Script::DoubleEscapeEnd;
                        } else if i == n {
                            return self.text_to_end();
                        } else {
                            s = Script::DoubleEscaped;
                        }
                    } else {
                        s = Script::DoubleEscaped;
                    }
                }
                Script::DoubleEscapeEnd => {
                    let c = *b.get(i).or_else(|| self.text_to_end_none())?;
                    if is_ws(c) || c == b'/' || c == b'>' {
                        i += 1;
                        s = Script::Escaped;
                    } else {
                        s = Script::DoubleEscaped;
                    }
                }
            }
        }
    }

    /// [`text_to_end`](Self::text_to_end) for the `?` of an `Option` of another type.
    fn text_to_end_none<T>(&mut self) -> Option<T> {
        self.text_to_end();
        None
    }

    /// A CDATA section's text, up to `]]>`.
    fn cdata(&mut self) -> Option<Mode> {
        match memchr::memmem::find(&self.b[self.pos..], b"]]>") {
            Some(i) => {
                let end = self.pos + i;
                self.markup(end, end + 3);
                self.kind = TextKind::Data;
                Some(Mode::Data)
            }
            None => self.text_to_end(),
        }
    }
}
