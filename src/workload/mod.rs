//! Workloads made real (server side): lengths drawn from their distributions with a seed (`lengths`), text from
//! the built-in corpus (`corpus`) cut to an exact number of tokens (`prompt`) by the server's own tokenizer
//! (`tokenizer`). The
//! workload's description is `model::workload`, shared with the browser; what needs a random source or a
//! tokenizer is here.

mod corpus;
mod lengths;
mod prompt;
mod requests;
mod tokenizer;

pub use corpus::CorpusText;
pub use lengths::{quantile, LengthDraws};
pub use prompt::{exact_prompt, exact_prompt_after, MadePrompt};
pub use requests::{request_lengths, request_seed, Prepared, PreparedRequests, RequestMaker, WINDOW};
pub use tokenizer::{ServerTokenizer, Token, TokenizeError, TokenizeForm};
