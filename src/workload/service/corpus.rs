//! The built-in corpus synthetic prompts are cut from: sentences of common English words drawn by a generator
//! seeded per request, so every request's text is its own (no accidental prefix-cache hits between requests) and
//! the same seed gives the same text again. Plain English words make tokenizers behave as they do on real prompts
//! (one to two tokens a word), unlike random token ids or repeated characters.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Common English words.
const WORDS: &[&str] = &[
    "the", "of", "and", "to", "in", "is", "it", "that", "was", "for", "on", "are", "with", "as", "they", "be", "at",
    "one", "have", "this", "from", "by", "hot", "word", "but", "what", "some", "we", "can", "out", "other", "were",
    "all", "there", "when", "up", "use", "your", "how", "said", "an", "each", "which", "she", "do", "their", "time",
    "if", "will", "way", "about", "many", "then", "them", "write", "would", "like", "so", "these", "her", "long",
    "make", "thing", "see", "him", "two", "has", "look", "more", "day", "could", "go", "come", "did", "number",
    "sound", "no", "most", "people", "my", "over", "know", "water", "than", "call", "first", "who", "may", "down",
    "side", "been", "now", "find", "any", "new", "work", "part", "take", "get", "place", "made", "live", "where",
    "after", "back", "little", "only", "round", "man", "year", "came", "show", "every", "good", "me", "give", "our",
    "under", "name", "very", "through", "just", "form", "sentence", "great", "think", "say", "help", "low", "line",
    "differ", "turn", "cause", "much", "mean", "before", "move", "right", "boy", "old", "too", "same", "tell", "does",
    "set", "three", "want", "air", "well", "also", "play", "small", "end", "put", "home", "read", "hand", "port",
    "large", "spell", "add", "even", "land", "here", "must", "big", "high", "such", "follow", "act", "why", "ask",
    "men", "change", "went", "light", "kind", "off", "need", "house", "picture", "try", "us", "again", "animal",
    "point", "mother", "world", "near", "build", "self", "earth", "father", "head", "stand", "own", "page", "should",
    "country", "found", "answer", "school", "grow", "study", "still", "learn", "plant", "cover", "food", "sun", "four",
    "between", "state", "keep", "eye", "never", "last", "let", "thought", "city", "tree", "cross", "farm", "hard",
    "start", "might", "story", "saw", "far", "sea", "draw", "left", "late", "run", "while", "press", "close", "night",
    "real", "life", "few", "north", "open", "seem", "together", "next", "white", "children", "begin", "got", "walk",
    "example", "ease", "paper", "group", "always", "music", "those", "both", "mark", "often", "letter", "until",
    "mile", "river", "car", "feet", "care", "second", "book", "carry", "took", "science", "eat", "room", "friend",
    "began", "idea", "fish", "mountain", "stop", "once", "base", "hear", "horse", "cut", "sure", "watch", "color",
    "face", "wood", "main", "enough", "plain", "girl", "usual", "young", "ready", "above", "ever", "red", "list",
    "though", "feel", "talk", "bird", "soon", "body", "dog", "family", "direct", "pose", "leave", "song", "measure",
    "door", "product", "black", "short", "numeral", "class", "wind", "question", "happen", "complete", "ship", "area",
    "half", "rock", "order", "fire", "south", "problem", "piece", "told", "knew", "pass", "since", "top", "whole",
    "king", "space", "heard", "best", "hour", "better", "true", "during", "hundred", "five", "remember", "step",
    "early", "hold", "west", "ground", "interest", "reach", "fast", "verb", "sing", "listen", "six", "table", "travel",
    "less", "morning", "ten", "simple", "several", "vowel", "toward", "war", "lay", "against", "pattern", "slow",
    "center", "love", "person", "money", "serve", "appear", "road", "map", "rain", "rule", "govern", "pull", "cold",
    "notice", "voice", "unit", "power", "town", "fine", "certain", "fly", "fall", "lead", "cry", "dark", "machine",
    "note", "wait", "plan", "figure", "star", "box", "noun", "field", "rest", "correct", "able", "pound", "done",
    "beauty", "drive", "stood", "contain", "front", "teach", "week", "final", "gave", "green", "oh", "quick",
    "develop", "ocean", "warm", "free", "minute", "strong", "special", "mind", "behind", "clear", "tail", "produce",
    "fact", "street", "inch", "multiply", "nothing", "course", "stay", "wheel", "full", "force", "blue", "object",
    "decide", "surface", "deep", "moon", "island", "foot", "system", "busy", "test", "record", "boat", "common",
    "gold", "possible", "plane", "stead", "dry", "wonder", "laugh", "thousand", "ago", "ran", "check", "game", "shape",
    "equate", "miss", "brought", "heat", "snow", "tire", "bring", "yes", "distant", "fill", "east", "paint",
    "language", "among",
];

/// Words of one sentence, at least and at most.
const SENTENCE_WORDS: (usize, usize) = (6, 18);

/// The words of the text of `seed`, each with what comes before it (a space, or a sentence's end and a space):
/// joined, they are the text.
pub struct CorpusText {
    rng: StdRng,
    left_in_sentence: usize,
    started: bool,
}

impl CorpusText {
    /// The text of `seed`.
    pub fn new(seed: u64) -> Self {
        Self { rng: StdRng::seed_from_u64(seed), left_in_sentence: 0, started: false }
    }

    /// At least `chars` bytes of the text, ending at a word's end.
    pub fn take_chars(&mut self, chars: usize) -> String {
        let mut text = String::with_capacity(chars + 16);
        while text.len() < chars {
            let word = self.next_word();
            text.push_str(&word);
        }
        text
    }

    fn next_word(&mut self) -> String {
        let word = WORDS[self.rng.gen_range(0..WORDS.len())];
        let starts_sentence = self.left_in_sentence == 0;
        if starts_sentence {
            self.left_in_sentence = self.rng.gen_range(SENTENCE_WORDS.0..=SENTENCE_WORDS.1);
        }
        self.left_in_sentence -= 1;
        let before = match (self.started, starts_sentence) {
            (false, _) => "",
            (true, true) => ". ",
            (true, false) if self.rng.gen_ratio(1, 12) => ", ",
            (true, false) => " ",
        };
        self.started = true;
        if starts_sentence {
            let mut letters = word.chars();
            let first = letters.next().map(|c| c.to_ascii_uppercase()).into_iter();
            format!("{before}{}", first.chain(letters).collect::<String>())
        } else {
            format!("{before}{word}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_sentences_and_another_seed_others() {
        let text = CorpusText::new(1).take_chars(400);
        assert_eq!(text, CorpusText::new(1).take_chars(400));
        assert!(text.len() >= 400 && text.len() < 420, "{}", text.len());
        assert!(text.chars().next().unwrap().is_ascii_uppercase(), "{text}");
        assert!(text.contains(". "), "sentences end: {text}");
        let other = CorpusText::new(2).take_chars(400);
        let shared = text.bytes().zip(other.bytes()).take_while(|(a, b)| a == b).count();
        assert!(shared < 12, "two seeds share a prefix of {shared} bytes");
    }

    #[test]
    fn the_text_goes_on_where_it_stopped() {
        let mut reader = CorpusText::new(9);
        let first = reader.take_chars(50);
        let rest = reader.take_chars(50);
        assert_eq!(format!("{first}{rest}"), CorpusText::new(9).take_chars(first.len() + 50));
    }
}
