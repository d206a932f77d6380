//! The word tables the fact rules read: verb cues with their frames, role
//! nouns, the nouns that type a thing ("a 1987 *film*"), and demonyms.
//! Every table is lower case; a unit test checks it.

use std::sync::OnceLock;

use rlmkg_graph::Predicate;
use rustc_hash::{FxHashMap, FxHashSet};

/// What kind of entity an argument slot takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// A date.
    Date,
    /// Anything but a date (a place, person, organisation, work).
    Thing,
}

/// Which way a frame's fact runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dir {
    /// The clause's subject is the fact's subject.
    Forward,
    /// The argument is the fact's subject, the clause's subject its object.
    Backward,
}

/// One argument a verb takes: the preposition before it (`""`: the direct
/// object), what it must be, and the fact it makes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frame {
    pub prep: &'static str,
    pub slot: Slot,
    pub pred: Predicate,
    pub dir: Dir,
}

/// A verb cue: its forms (lower case), its frames in the active voice and in
/// the passive ("was founded by"), and whether a date argument of an active
/// clause belongs to the direct object ("X founded Y in 1923": Y's date).
pub(crate) struct Cue {
    pub forms: &'static [&'static str],
    pub active: &'static [Frame],
    pub passive: &'static [Frame],
    pub date_of_object: bool,
}

const fn f(prep: &'static str, slot: Slot, pred: Predicate, dir: Dir) -> Frame {
    Frame {
        prep,
        slot,
        pred,
        dir,
    }
}

/// The frames of a verb that takes a place ("in", "at" or none) and a date
/// ("in", "on" or none): "born in Oslo on 3 May 1901".
const fn place_and_date(place: Predicate, date: Predicate) -> [Frame; 6] {
    [
        f("in", Slot::Thing, place, Dir::Forward),
        f("at", Slot::Thing, place, Dir::Forward),
        f("", Slot::Thing, place, Dir::Forward),
        f("in", Slot::Date, date, Dir::Forward),
        f("on", Slot::Date, date, Dir::Forward),
        f("", Slot::Date, date, Dir::Forward),
    ]
}

use Dir::{Backward as B, Forward as F};
use Predicate as P;
use Slot::{Date as D, Thing as T};

/// Where a thing is, in either voice ("based in", "is situated near").
pub(crate) const LOCATED: [Frame; 4] = [
    f("in", T, P::LocatedIn, F),
    f("at", T, P::LocatedIn, F),
    f("on", T, P::LocatedIn, F),
    f("near", T, P::LocatedIn, F),
];

/// "born in Oslo on 3 May 1901 to X and Y": a place, a date, the parents.
const BORN: [Frame; 7] = {
    let [a, b, c, d, e, g] = place_and_date(P::BornIn, P::DateOfBirth);
    [a, b, c, d, e, g, f("to", T, P::ParentOf, B)]
};

/// The verb cues. A form listed here is read as that verb wherever it stands
/// in a clause after its subject.
pub(crate) const CUES: &[Cue] = &[
    Cue {
        forms: &["born"],
        active: &BORN,
        passive: &[],
        date_of_object: false,
    },
    Cue {
        forms: &["died", "dies", "die", "dead"],
        active: &place_and_date(P::DiedIn, P::DateOfDeath),
        passive: &[],
        date_of_object: false,
    },
    Cue {
        forms: &[
            "founded",
            "founds",
            "co-founded",
            "cofounded",
            "established",
            "establishes",
        ],
        active: &[f("", T, P::Founded, F), f("in", D, P::DateOfFounding, F)],
        passive: &[
            f("by", T, P::Founded, B),
            f("in", D, P::DateOfFounding, F),
            f("", D, P::DateOfFounding, F),
            f("in", T, P::LocatedIn, F),
        ],
        date_of_object: true,
    },
    Cue {
        forms: &["located", "based", "headquartered", "situated"],
        active: &LOCATED,
        passive: &LOCATED,
        date_of_object: false,
    },
    Cue {
        forms: &["joined", "joins", "join"],
        active: &[f("", T, P::MemberOf, F)],
        passive: &[],
        date_of_object: false,
    },
    Cue {
        forms: &["worked", "works", "work", "taught", "teaches", "lectured"],
        active: &[
            f("at", T, P::EmployedBy, F),
            f("for", T, P::EmployedBy, F),
            f("", T, P::EmployedBy, F),
        ],
        passive: &[f("by", T, P::EmployedBy, F), f("at", T, P::EmployedBy, F)],
        date_of_object: false,
    },
    Cue {
        forms: &[
            "led", "leads", "lead", "headed", "heads", "directed", "directs", "chaired", "chairs",
            "managed", "manages",
        ],
        active: &[f("", T, P::Led, F)],
        passive: &[f("by", T, P::Led, B)],
        date_of_object: false,
    },
    Cue {
        forms: &["wrote", "writes", "written", "authored", "penned"],
        active: &[f("", T, P::AuthorOf, F)],
        passive: &[f("by", T, P::AuthorOf, B)],
        date_of_object: false,
    },
    Cue {
        forms: &["published", "publishes", "issued"],
        active: &[f("", T, P::PublishedBy, B)],
        passive: &[f("by", T, P::PublishedBy, F)],
        date_of_object: false,
    },
    Cue {
        forms: &["built", "builds", "constructed"],
        active: &[f("", T, P::BuiltBy, B)],
        passive: &[f("by", T, P::BuiltBy, F), f("at", T, P::BuiltBy, F)],
        date_of_object: false,
    },
    Cue {
        forms: &["employed", "employs"],
        active: &[f("", T, P::EmployedBy, B)],
        passive: &[f("by", T, P::EmployedBy, F), f("at", T, P::EmployedBy, F)],
        date_of_object: false,
    },
    Cue {
        forms: &["won", "wins", "received", "receives"],
        active: &[f("", T, P::Won, F)],
        passive: &[],
        date_of_object: false,
    },
    Cue {
        forms: &["awarded", "given", "presented"],
        active: &[f("to", T, P::Won, B)],
        passive: &[f("", T, P::Won, F), f("to", T, P::Won, B)],
        date_of_object: false,
    },
    Cue {
        forms: &["married", "marries", "wed"],
        active: &[f("", T, P::SpouseOf, F), f("to", T, P::SpouseOf, F)],
        passive: &[f("to", T, P::SpouseOf, F)],
        date_of_object: false,
    },
    Cue {
        forms: &["succeeded", "succeeds", "replaced", "replaces"],
        active: &[f("", T, P::Succeeded, F), f("as", T, P::Succeeded, F)],
        passive: &[f("by", T, P::Succeeded, B), f("as", T, P::Succeeded, F)],
        date_of_object: false,
    },
    Cue {
        forms: &["preceded"],
        active: &[f("", T, P::Succeeded, B)],
        passive: &[f("by", T, P::Succeeded, F)],
        date_of_object: false,
    },
];

/// Verbs outside the cues that relate a subject to a name (present tense and
/// participles the past-tense rule misses): their facts are `other`.
pub(crate) const VERBS: &[&str] = &[
    "stars",
    "starring",
    "features",
    "featuring",
    "includes",
    "including",
    "plays",
    "playing",
    "hosts",
    "serves",
    "represents",
    "owns",
    "produces",
    "releases",
    "sings",
    "consists",
    "contains",
    "covers",
    "borders",
    "operates",
    "flows",
    "attends",
    "studies",
    "becomes",
    "became",
    "won",
    "made",
    "began",
    "took",
    "gave",
    "went",
    "met",
    "left",
    "held",
    "sold",
    "bought",
    "brought",
    "taught",
    "fought",
    "ran",
    "saw",
    "grew",
    "drew",
    "spent",
];

/// The forms of "to be" that make a clause passive before a participle, or
/// a copula ("X is a film").
pub(crate) const BE: &[&str] = &["is", "was", "are", "were", "be", "been", "being"];

/// Words that may stand between "be" and a participle ("was later founded").
pub(crate) const BETWEEN: &[&str] = &[
    "also",
    "later",
    "first",
    "then",
    "originally",
    "formally",
    "officially",
    "once",
    "not",
    "jointly",
    "briefly",
    "eventually",
    "finally",
    "initially",
    "soon",
];

/// Prepositions of place: after a name and a comma they go on with the
/// clause ("east of Dodge City, in Ford County"), and names after them and
/// a place noun go on with the place before ("in Ratnagiri district,
/// Maharashtra").
pub(crate) const LOCATIVES: &[&str] = &["in", "at", "on", "near"];

/// The sides of a place ("bordered by X to the north").
pub(crate) const COMPASS: &[&str] = &[
    "north",
    "south",
    "east",
    "west",
    "northeast",
    "northwest",
    "southeast",
    "southwest",
];

/// Nouns of a part of a place: "in the northern part of X" is in X (not
/// the compass points: "north of X" is outside it).
pub(crate) const PARTS: &[&str] = &[
    "shore",
    "shores",
    "bank",
    "banks",
    "coast",
    "mouth",
    "foot",
    "slopes",
    "summit",
    "tip",
    "part",
    "parts",
    "section",
    "portion",
    "side",
    "end",
    "edge",
    "outskirts",
    "heart",
    "centre",
    "center",
    "corner",
    "suburbs",
    "interior",
];

/// Prepositions that govern an argument.
pub(crate) const PREPOSITIONS: &[&str] = &[
    "in", "at", "on", "by", "of", "to", "from", "for", "with", "into", "near", "as",
];

/// A role noun: the relation between the role's holder and its possessor.
/// `holder_subject`: the holder is the fact's subject ("founder": the holder
/// founded the possessor), else the possessor is ("son": the possessor is
/// the holder's parent).
pub(crate) struct Role {
    pub nouns: &'static [&'static str],
    pub pred: Predicate,
    pub holder_subject: bool,
}

/// Role nouns: "his cousin Per Haugen", "Its founder, X", "X is the son of Y".
pub(crate) const ROLES: &[Role] = &[
    Role {
        nouns: &["founder", "co-founder", "cofounder"],
        pred: P::Founded,
        holder_subject: true,
    },
    Role {
        nouns: &[
            "director",
            "head",
            "leader",
            "chairman",
            "chairwoman",
            "chair",
            "president",
            "rector",
            "principal",
            "captain",
            "manager",
            "premier",
            "mayor",
            "governor",
            "king",
            "queen",
            "emperor",
            "empress",
            "ruler",
            "monarch",
            "chancellor",
        ],
        pred: P::Led,
        holder_subject: true,
    },
    Role {
        nouns: &["author", "writer"],
        pred: P::AuthorOf,
        holder_subject: true,
    },
    Role {
        nouns: &["publisher"],
        pred: P::PublishedBy,
        holder_subject: false,
    },
    Role {
        nouns: &["builder"],
        pred: P::BuiltBy,
        holder_subject: false,
    },
    Role {
        nouns: &["wife", "husband", "spouse", "widow", "widower"],
        pred: P::SpouseOf,
        holder_subject: true,
    },
    Role {
        nouns: &["son", "daughter", "child"],
        pred: P::ParentOf,
        holder_subject: false,
    },
    Role {
        nouns: &["father", "mother", "parent"],
        pred: P::ParentOf,
        holder_subject: true,
    },
    Role {
        nouns: &["brother", "sister", "sibling", "twin"],
        pred: P::SiblingOf,
        holder_subject: true,
    },
    Role {
        nouns: &[
            "cousin",
            "nephew",
            "niece",
            "uncle",
            "aunt",
            "grandson",
            "granddaughter",
            "grandfather",
            "grandmother",
            "grandchild",
            "relative",
        ],
        pred: P::RelativeOf,
        holder_subject: true,
    },
    Role {
        nouns: &["successor"],
        pred: P::Succeeded,
        holder_subject: true,
    },
    Role {
        nouns: &["predecessor"],
        pred: P::Succeeded,
        holder_subject: false,
    },
    Role {
        nouns: &["member"],
        pred: P::MemberOf,
        holder_subject: true,
    },
    Role {
        nouns: &["part", "capital"],
        pred: P::PartOf,
        holder_subject: true,
    },
    Role {
        nouns: &["winner", "recipient"],
        pred: P::Won,
        holder_subject: true,
    },
];

/// Nouns that say a thing is a work ("a 1987 *film*").
pub(crate) const WORK_NOUNS: &[&str] = &[
    "book",
    "novel",
    "film",
    "movie",
    "album",
    "song",
    "single",
    "ship",
    "vessel",
    "boat",
    "play",
    "poem",
    "series",
    "sitcom",
    "show",
    "opera",
    "painting",
    "game",
    "videogame",
    "magazine",
    "newspaper",
    "journal",
    "atlas",
    "memoir",
    "biography",
    "documentary",
    "musical",
    "symphony",
    "comic",
    "manga",
    "anime",
    "episode",
    "ep",
    "soundtrack",
    "study",
    "report",
    "survey",
    "essay",
    "collection",
    "anthology",
    "novella",
    "ballet",
    "drama",
    "thriller",
    "comedy",
    "yacht",
    "steamer",
    "ferry",
    "frigate",
    "schooner",
    "trawler",
    "lp",
    "track",
    "mixtape",
    "compilation",
    "ballad",
    "hymn",
    "anthem",
    "aria",
    "cantata",
    "concerto",
    "sonata",
    "oratorio",
    "operetta",
    "screenplay",
    "trilogy",
    "miniseries",
    "serial",
    "telenovela",
    "sequel",
];

/// Nouns that say a thing is a person ("an American *actress*").
pub(crate) const PERSON_NOUNS: &[&str] = &[
    "actor",
    "actress",
    "singer",
    "songwriter",
    "writer",
    "author",
    "novelist",
    "poet",
    "politician",
    "footballer",
    "player",
    "musician",
    "composer",
    "painter",
    "artist",
    "director",
    "producer",
    "scientist",
    "physicist",
    "chemist",
    "biologist",
    "engineer",
    "shipwright",
    "oceanographer",
    "geographer",
    "glaciologist",
    "historian",
    "philosopher",
    "journalist",
    "businessman",
    "businesswoman",
    "entrepreneur",
    "lawyer",
    "judge",
    "soldier",
    "officer",
    "general",
    "admiral",
    "diplomat",
    "economist",
    "mathematician",
    "architect",
    "designer",
    "photographer",
    "model",
    "comedian",
    "rapper",
    "drummer",
    "guitarist",
    "pianist",
    "dancer",
    "screenwriter",
    "filmmaker",
    "editor",
    "teacher",
    "professor",
    "priest",
    "bishop",
    "monk",
    "king",
    "queen",
    "prince",
    "princess",
    "explorer",
    "sailor",
    "athlete",
    "coach",
    "manager",
    "cyclist",
    "swimmer",
    "boxer",
    "wrestler",
    "cricketer",
    "jockey",
    "surgeon",
    "physician",
    "doctor",
    "nurse",
    "inventor",
    "astronaut",
    "cartographer",
    "mapmaker",
    "geologist",
    "astronomer",
    "botanist",
    "zoologist",
    "linguist",
    "man",
    "woman",
    "person",
    "fisherman",
    "merchant",
    "banker",
    "industrialist",
    "activist",
    "sculptor",
    "illustrator",
    "critic",
    "presenter",
    "chef",
    "goalkeeper",
    "defender",
    "midfielder",
    "striker",
    "quarterback",
    "pitcher",
    "outfielder",
    "infielder",
    "batsman",
    "bowler",
    "golfer",
    "sportsman",
    "sportswoman",
    "sprinter",
    "skier",
    "rower",
    "statesman",
    "lawmaker",
    "legislator",
    "senator",
    "governor",
    "mayor",
    "emperor",
    "empress",
    "duke",
    "duchess",
    "earl",
    "baron",
    "playwright",
    "dramatist",
    "lyricist",
    "vocalist",
    "bassist",
    "conductor",
    "jurist",
    "theologian",
    "scholar",
    "sociologist",
    "psychologist",
    "anthropologist",
    "archaeologist",
    "educator",
    "academic",
    "psychiatrist",
    "missionary",
    "nun",
    "rabbi",
    "cleric",
    "aristocrat",
    "nobleman",
    "noblewoman",
    "knight",
    "commander",
    "colonel",
    "lieutenant",
    "character",
];

/// Nouns that say a thing is an organisation, beyond the name words
/// (`ORG_WORDS`) a name holds.
pub(crate) const ORG_NOUNS: &[&str] = &[
    "company",
    "band",
    "group",
    "institute",
    "university",
    "college",
    "school",
    "publisher",
    "firm",
    "shipyard",
    "organisation",
    "organization",
    "club",
    "team",
    "party",
    "label",
    "society",
    "association",
    "foundation",
    "agency",
    "corporation",
    "manufacturer",
    "brewery",
    "airline",
    "studio",
    "laboratory",
    "lab",
    "museum",
    "library",
    "orchestra",
    "choir",
    "charity",
    "business",
    "enterprise",
    "startup",
    "conglomerate",
    "network",
    "broadcaster",
    "yard",
    "press",
    "house",
    "guild",
    "fund",
    "league",
    "federation",
    "council",
    "committee",
    "ministry",
    "militia",
    "army",
    "regiment",
    "navy",
    "chain",
    "retailer",
    "bank",
    "insurer",
    "squad",
    "ensemble",
    "duo",
    "trio",
    "quartet",
    "supergroup",
    "academy",
    "conservatory",
    "hospital",
];

/// Nouns that say a thing is a place.
pub(crate) const PLACE_NOUNS: &[&str] = &[
    "city",
    "town",
    "village",
    "country",
    "county",
    "state",
    "province",
    "region",
    "river",
    "island",
    "mountain",
    "lake",
    "municipality",
    "district",
    "capital",
    "port",
    "suburb",
    "borough",
    "parish",
    "hamlet",
    "fjord",
    "peninsula",
    "valley",
    "commune",
    "settlement",
    "neighbourhood",
    "neighborhood",
    "territory",
    "kingdom",
    "republic",
    "nation",
    "waterfall",
    "bay",
    "sea",
    "ocean",
    "park",
    "street",
    "road",
    "square",
    "area",
    "community",
    "locality",
    "township",
    "archipelago",
    "cape",
    "desert",
    "site",
    "airport",
    "hotel",
    "farm",
    "building",
    "bridge",
    "dam",
    "reservoir",
    "creek",
    "stream",
    "tributary",
    "peak",
    "hill",
    "pond",
    "cemetery",
    "castle",
    "church",
    "mound",
    "stadium",
    "arena",
    "monument",
    "tower",
    "lighthouse",
    "canal",
    "harbour",
    "harbor",
    "palace",
    "cathedral",
    "abbey",
    "temple",
    "mosque",
    "monastery",
    "constituency",
    "ward",
    "governorate",
    "oblast",
    "prefecture",
    "canton",
    "voivodeship",
    "arrondissement",
    "continent",
];

/// Adjectives of nationality and origin written with a capital ("an
/// *American* actress"): never an entity when a lower-case word follows.
pub(crate) const DEMONYMS: &[&str] = &[
    "american",
    "british",
    "english",
    "scottish",
    "welsh",
    "irish",
    "canadian",
    "australian",
    "french",
    "german",
    "italian",
    "spanish",
    "portuguese",
    "dutch",
    "belgian",
    "swiss",
    "austrian",
    "swedish",
    "norwegian",
    "danish",
    "finnish",
    "icelandic",
    "polish",
    "czech",
    "slovak",
    "hungarian",
    "romanian",
    "bulgarian",
    "greek",
    "turkish",
    "russian",
    "ukrainian",
    "belarusian",
    "lithuanian",
    "latvian",
    "estonian",
    "serbian",
    "croatian",
    "slovenian",
    "bosnian",
    "albanian",
    "macedonian",
    "georgian",
    "armenian",
    "chinese",
    "japanese",
    "korean",
    "indian",
    "pakistani",
    "bangladeshi",
    "vietnamese",
    "thai",
    "indonesian",
    "filipino",
    "malaysian",
    "mexican",
    "brazilian",
    "argentine",
    "argentinian",
    "chilean",
    "colombian",
    "peruvian",
    "venezuelan",
    "cuban",
    "egyptian",
    "moroccan",
    "nigerian",
    "kenyan",
    "ethiopian",
    "ghanaian",
    "israeli",
    "iranian",
    "iraqi",
    "syrian",
    "lebanese",
    "saudi",
    "jewish",
    "arab",
    "african",
    "asian",
    "european",
    "latin",
    "hispanic",
    "nordic",
    "scandinavian",
    "arctic",
    "soviet",
    "roman",
    "catholic",
    "protestant",
    "christian",
    "muslim",
    "islamic",
    "buddhist",
    "hindu",
    "anglo",
    "afro",
    "native",
    "based",
    "new",
    "zealander",
    "puerto",
    "rican",
    "african-american",
    "british-born",
    "american-born",
    "south",
    "north",
    "west",
    "east",
    "southern",
    "northern",
    "western",
    "eastern",
    "central",
    "anglican",
    "lutheran",
    "methodist",
    "baptist",
    "orthodox",
    "sunni",
    "shia",
];

/// A word table as a hash set, built once from its list (lower case).
pub(crate) struct Words {
    list: &'static [&'static str],
    set: OnceLock<FxHashSet<&'static str>>,
}

impl Words {
    const fn new(list: &'static [&'static str]) -> Self {
        Self {
            list,
            set: OnceLock::new(),
        }
    }

    /// Whether `w`, as written, is in the table.
    pub(crate) fn has(&self, w: &str) -> bool {
        self.set
            .get_or_init(|| self.list.iter().copied().collect())
            .contains(w)
    }
}

/// [`VERBS`] as a set.
pub(crate) static VERB_SET: Words = Words::new(VERBS);
/// [`BETWEEN`] as a set.
pub(crate) static BETWEEN_SET: Words = Words::new(BETWEEN);
/// [`PARTS`] as a set.
pub(crate) static PART_SET: Words = Words::new(PARTS);
/// [`PREPOSITIONS`] as a set.
pub(crate) static PREPOSITION_SET: Words = Words::new(PREPOSITIONS);
/// [`PLACE_NOUNS`] as a set.
pub(crate) static PLACE_NOUN_SET: Words = Words::new(PLACE_NOUNS);
/// [`DEMONYMS`] as a set.
pub(crate) static DEMONYM_SET: Words = Words::new(DEMONYMS);
/// Whether `word` (lower case) is a form of "be" or "have", a cue's form, a
/// listed verb or an irregular past ("won"): one lookup for the words a
/// clause's verb may be.
pub(crate) fn is_verb_form(word: &str) -> bool {
    static FORMS: OnceLock<FxHashSet<&'static str>> = OnceLock::new();
    FORMS
        .get_or_init(|| {
            let irregular = rlmkg_text::IRREGULAR_VERBS
                .iter()
                .flat_map(|(_, past, _)| past.iter().copied());
            BE.iter()
                .copied()
                .chain(CUES.iter().flat_map(|c| c.forms.iter().copied()))
                .chain(VERBS.iter().copied())
                .chain(["has", "had", "have"])
                .chain(irregular)
                .collect()
        })
        .contains(word)
}

/// Longest ASCII word [`with_lower`] lower-cases on the stack.
const STACK_LEN: usize = 64;

/// `f` of `word` lower-cased as `str::to_lowercase` does, with no
/// allocation for a short ASCII word.
pub(crate) fn with_lower<R>(word: &str, f: impl FnOnce(&str) -> R) -> R {
    let mut buf = [0u8; STACK_LEN];
    if word.is_ascii()
        && let Some(lw) = buf.get_mut(..word.len())
    {
        lw.copy_from_slice(word.as_bytes());
        lw.make_ascii_lowercase();
        if let Ok(lw) = std::str::from_utf8(lw) {
            return f(lw);
        }
    }
    f(&word.to_lowercase())
}

/// Whether `word` (any case) is in `list` (lower case).
pub(crate) fn listed(list: &Words, word: &str) -> bool {
    with_lower(word, |lw| list.has(lw))
}

/// Whether a word is an adjective of nationality: listed, or a hyphenated
/// compound of such words ("Trinidadian-American": a listed part, the others
/// ending as demonyms do).
pub(crate) fn is_demonym(word: &str) -> bool {
    listed(&DEMONYM_SET, word) || is_demonym_run(&[word])
}

/// Whether words are one adjective of nationality ("Saudi Arabian",
/// "Trinidadian-American"): a listed part, the others listed or ending as
/// demonyms do.
pub(crate) fn is_demonym_run(words: &[&str]) -> bool {
    demonym_run_by(words, |p| DEMONYM_SET.has(p))
}

/// [`is_demonym_run`] with another list: `listed` answers for a lower-case,
/// hyphen-free part.
pub(crate) fn demonym_run_by(words: &[&str], listed: impl Fn(&str) -> bool) -> bool {
    let (mut any, mut all) = (false, true);
    for w in words {
        with_lower(w, |lw| {
            for p in lw.split('-') {
                let listed = listed(p);
                any |= listed;
                all &= listed
                    || ["ian", "an", "ese", "ish", "ic", "i"]
                        .iter()
                        .any(|s| p.ends_with(s));
            }
        });
    }
    any && all
}

/// The entity kind a typing noun gives, singular or plural ("cities").
pub(crate) fn kind_of_noun(noun: &str) -> Option<&'static str> {
    with_lower(noun, |lw| {
        kind_of_lower(lw).or_else(|| {
            if let Some(stem) = lw.strip_suffix("ies") {
                kind_of_singular(&format!("{stem}y"))
            } else {
                lw.strip_suffix('s').and_then(kind_of_singular)
            }
        })
    })
}

/// The kind of the first of the work, person, place and organisation noun
/// lists that holds `noun` (any case).
fn kind_of_singular(noun: &str) -> Option<&'static str> {
    with_lower(noun, kind_of_lower)
}

/// [`kind_of_singular`] of a word already lower-cased.
fn kind_of_lower(noun: &str) -> Option<&'static str> {
    static KINDS: OnceLock<FxHashMap<&'static str, &'static str>> = OnceLock::new();
    let kinds = KINDS.get_or_init(|| {
        first_by(
            [
                ("work", WORK_NOUNS),
                ("person", PERSON_NOUNS),
                ("place", PLACE_NOUNS),
                ("organization", ORG_NOUNS),
            ]
            .into_iter(),
        )
    });
    kinds.get(noun).copied()
}

/// Whether a word (any case) is a noun that types a thing ("EP", "film"):
/// no name when written in capitals.
pub(crate) fn is_typing_noun(word: &str) -> bool {
    kind_of_noun(word).is_some()
}

/// The cue a word is a form of.
pub(crate) fn cue(word: &str) -> Option<&'static Cue> {
    static BY_FORM: OnceLock<FxHashMap<&'static str, &'static Cue>> = OnceLock::new();
    BY_FORM
        .get_or_init(|| first_by(CUES.iter().map(|c| (c, c.forms))))
        .get(word)
        .copied()
}

/// Each word of the items' word lists, keyed to the first item (in list
/// order) that has it: a lookup that answers as a scan in that order would.
fn first_by<V: Copy>(
    items: impl Iterator<Item = (V, &'static [&'static str])>,
) -> FxHashMap<&'static str, V> {
    let mut map = FxHashMap::default();
    for (item, words) in items {
        for w in words {
            map.entry(*w).or_insert(item);
        }
    }
    map
}

/// The role a noun names.
/// Nouns of a parent's partner who need not be a spouse ("the son of X and
/// his mistress Y": Y is a parent too).
pub(crate) const PARTNERS: &[&str] = &["mistress", "concubine", "partner", "consort"];

/// Whether `noun` names a partner: a spouse role or one of [`PARTNERS`].
pub(crate) fn is_partner(noun: &str) -> bool {
    PARTNERS.contains(&noun) || role(noun).is_some_and(|r| r.pred == P::SpouseOf)
}

/// The role a noun names; a plural of kin too ("brothers", "sons").
pub(crate) fn role(noun: &str) -> Option<&'static Role> {
    static BY_NOUN: OnceLock<FxHashMap<&'static str, &'static Role>> = OnceLock::new();
    static KIN_BY_NOUN: OnceLock<FxHashMap<&'static str, &'static Role>> = OnceLock::new();
    BY_NOUN
        .get_or_init(|| first_by(ROLES.iter().map(|r| (r, r.nouns))))
        .get(noun)
        .copied()
        .or_else(|| {
            let one = noun.strip_suffix('s')?;
            KIN_BY_NOUN
                .get_or_init(|| {
                    first_by(
                        ROLES
                            .iter()
                            .filter(|r| r.pred.kinship())
                            .map(|r| (r, r.nouns)),
                    )
                })
                .get(one)
                .copied()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A typing noun gives one kind ("publisher" is a company, not a person).
    #[test]
    fn a_typing_noun_is_in_one_kind_list() {
        let lists = [WORK_NOUNS, PERSON_NOUNS, PLACE_NOUNS, ORG_NOUNS];
        for (i, a) in lists.iter().enumerate() {
            for b in lists.iter().skip(i + 1) {
                let both: Vec<&&str> = a.iter().filter(|w| b.contains(w)).collect();
                assert!(both.is_empty(), "{both:?}");
            }
        }
    }

    /// The hash lookups answer as the list scans they replaced.
    #[test]
    fn sets_answer_as_their_lists() {
        let words = [
            "Film",
            "CITIES",
            "movies",
            "American",
            "\u{212A}ing",
            "Is",
            "won",
            "founded",
            "has",
            "in",
            "Trinidadian-American",
            "\u{1C5}",
            "",
        ];
        for w in words {
            let lw = w.to_lowercase();
            assert_eq!(with_lower(w, str::to_owned), lw, "{w}");
            assert_eq!(
                listed(&DEMONYM_SET, w),
                DEMONYMS.contains(&lw.as_str()),
                "{w}"
            );
            assert_eq!(PREPOSITION_SET.has(w), PREPOSITIONS.contains(&w), "{w}");
            let verb = BE.contains(&w)
                || cue(w).is_some()
                || VERBS.contains(&w)
                || matches!(w, "has" | "had" | "have")
                || rlmkg_text::is_irregular_past(w);
            assert_eq!(is_verb_form(w), verb, "{w}");
        }
        assert_eq!(kind_of_noun("Cities"), Some("place"));
        assert_eq!(kind_of_noun("movies"), None);
        assert_eq!(kind_of_noun("FILMS"), Some("work"));
        assert!(is_demonym("Trinidadian-American"));
    }

    #[test]
    fn tables_are_lower_case() {
        let lists: Vec<&[&str]> = vec![
            VERBS,
            BE,
            BETWEEN,
            PREPOSITIONS,
            PARTS,
            WORK_NOUNS,
            PERSON_NOUNS,
            ORG_NOUNS,
            PLACE_NOUNS,
            DEMONYMS,
        ];
        let cue_forms = CUES.iter().map(|c| c.forms);
        let role_nouns = ROLES.iter().map(|r| r.nouns);
        for list in lists.into_iter().chain(cue_forms).chain(role_nouns) {
            for w in list {
                assert_eq!(*w, w.to_lowercase(), "{w}");
            }
        }
    }
}
