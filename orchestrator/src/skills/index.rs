//! The skills' full-text index: tantivy, in RAM, with jieba's tokenizer (Chinese words are not
//! separated by spaces), lower-cased, punctuation and stop words left out. The name weighs most,
//! then the description, then the procedure.

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, STORED, Schema, TextFieldIndexing, TextOptions, Value as _};
use tantivy::snippet::SnippetGenerator;
use tantivy::tokenizer::{LowerCaser, StopWordFilter, TextAnalyzer, Token, TokenFilter, TokenStream, Tokenizer};
use tantivy::{Index, IndexReader, TantivyDocument, Term, doc};

/// The tokenizer's name in the index.
const TOKENIZER: &str = "navguard-jieba";
/// Words that say nothing of a skill, in English and in Chinese.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "it", "of", "on", "or", "the",
    "then", "to", "with", "的", "了", "和", "是", "在", "就", "都", "而", "及", "与", "着", "或", "一个", "我", "你",
    "他", "这", "那", "把", "被", "请",
];
/// The snippet's length, in characters.
const SNIPPET_CHARS: usize = 160;

/// Why the index could not be built (never the skills' fault: they were read already).
#[derive(Debug, thiserror::Error)]
#[error("the skills' index: {0}")]
pub struct IndexError(#[from] tantivy::TantivyError);

/// The index of the skills, by their number in the library.
pub(super) struct SkillIndex {
    reader: IndexReader,
    fields: Fields,
}

impl std::fmt::Debug for SkillIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillIndex").finish_non_exhaustive()
    }
}

#[derive(Clone, Copy)]
struct Fields {
    number: Field,
    name: Field,
    description: Field,
    body: Field,
}

/// One skill as the index takes it.
pub(super) struct Indexed<'a> {
    pub(super) name: &'a str,
    pub(super) description: &'a str,
    pub(super) body: &'a str,
}

/// A hit: the skill's number, its score and a snippet of its procedure (or description).
pub(super) struct Found {
    pub(super) number: usize,
    pub(super) score: f32,
    pub(super) snippet: String,
}

impl SkillIndex {
    pub(super) fn build<'a>(skills: impl IntoIterator<Item = Indexed<'a>>) -> Result<Self, IndexError> {
        let text = TextOptions::default()
            .set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer(TOKENIZER)
                    .set_index_option(IndexRecordOption::WithFreqsAndPositions),
            )
            .set_stored();
        let mut schema = Schema::builder();
        let fields = Fields {
            number: schema.add_u64_field("number", STORED),
            name: schema.add_text_field("name", text.clone()),
            description: schema.add_text_field("description", text.clone()),
            body: schema.add_text_field("body", text),
        };
        let index = Index::create_in_ram(schema.build());
        index.tokenizers().register(TOKENIZER, analyzer());
        let mut writer = index.writer_with_num_threads(1, 15_000_000)?;
        for (number, skill) in skills.into_iter().enumerate() {
            writer.add_document(doc!(
                fields.number => number as u64,
                fields.name => skill.name,
                fields.description => skill.description,
                fields.body => skill.body,
            ))?;
        }
        writer.commit()?;
        let reader = index.reader()?;
        Ok(Self { reader, fields })
    }

    /// The best `limit` skills for `query`, best first. The query is words, not a query
    /// language: it is cut into words as the skills were (so a Chinese sentence, written without
    /// spaces, is words too), and a skill that holds any of them is a hit, scored by how many,
    /// how rare and where (the name weighs three times the procedure, the description twice).
    pub(super) fn search(&self, query: &str, limit: usize) -> Result<Vec<Found>, IndexError> {
        let f = self.fields;
        let mut words = Vec::new();
        let mut analyzer = analyzer();
        let mut stream = analyzer.token_stream(query);
        while stream.advance() {
            words.push(stream.token().text.clone());
        }
        words.sort();
        words.dedup();
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for (field, weight) in [(f.name, 3.0), (f.description, 2.0), (f.body, 1.0)] {
            for word in &words {
                let term = TermQuery::new(Term::from_field_text(field, word), IndexRecordOption::WithFreqs);
                clauses.push((Occur::Should, Box::new(BoostQuery::new(Box::new(term), weight))));
            }
        }
        if clauses.is_empty() {
            return Ok(Vec::new());
        }
        let query = BooleanQuery::new(clauses);
        let searcher = self.reader.searcher();
        let top = searcher.search(&query, &TopDocs::with_limit(limit.max(1)).order_by_score())?;
        let mut body_snippets = SnippetGenerator::create(&searcher, &query, f.body)?;
        body_snippets.set_max_num_chars(SNIPPET_CHARS);
        let mut found = Vec::with_capacity(top.len());
        for (score, address) in top {
            let document: TantivyDocument = searcher.doc(address)?;
            let number = document.get_first(f.number).and_then(|v| v.as_u64()).unwrap_or_default();
            let snippet = body_snippets.snippet_from_doc(&document);
            let snippet = if snippet.fragment().trim().is_empty() {
                let description = document.get_first(f.description).and_then(|v| v.as_str()).unwrap_or_default();
                description.chars().take(SNIPPET_CHARS).collect()
            } else {
                snippet.fragment().to_owned()
            };
            found.push(Found { number: usize::try_from(number).unwrap_or_default(), score, snippet });
        }
        Ok(found)
    }
}

fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(tantivy_jieba::JiebaTokenizer::new())
        .filter(WordsOnly)
        .filter(LowerCaser)
        .filter(StopWordFilter::remove(STOP_WORDS.iter().map(|w| (*w).to_owned())))
        .build()
}

/// Leaves out the tokens that hold no letter or digit: jieba gives spaces and punctuation as
/// tokens of their own.
#[derive(Clone)]
struct WordsOnly;

impl TokenFilter for WordsOnly {
    type Tokenizer<T: Tokenizer> = WordsOnlyFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> WordsOnlyFilter<T> {
        WordsOnlyFilter(tokenizer)
    }
}

#[derive(Clone)]
struct WordsOnlyFilter<T>(T);

impl<T: Tokenizer> Tokenizer for WordsOnlyFilter<T> {
    type TokenStream<'a> = WordsOnlyStream<T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        WordsOnlyStream(self.0.token_stream(text))
    }
}

struct WordsOnlyStream<T>(T);

impl<T: TokenStream> TokenStream for WordsOnlyStream<T> {
    fn advance(&mut self) -> bool {
        while self.0.advance() {
            if self.0.token().text.chars().any(char::is_alphanumeric) {
                return true;
            }
        }
        false
    }

    fn token(&self) -> &Token {
        self.0.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.0.token_mut()
    }
}
