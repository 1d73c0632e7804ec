//! The words and templates that titles, abstracts and author lists are made of.

/// Research topics; a paper belongs to one, and its title and abstract lean on its words.
pub const TOPICS: &[&str] = &[
    "parsing dependency treebank constituency parser syntax grammar arc-factored head-driven \
     transition-based",
    "translation decoder bilingual alignment reordering BLEU phrase-based back-translation \
     subword NMT",
    "summarization summary extractive abstractive salience redundancy headline compression \
     ROUGE highlight",
    "question answer reading comprehension passage retriever reader open-domain evidence \
     multi-hop",
    "sentiment polarity opinion aspect review emotion stance sarcasm subjectivity valence",
    "entity recognition extraction relation slot-filling mention typing coreference linking \
     knowledge-base",
    "dialogue conversation utterance turn-taking intent chatbot persona task-oriented \
     belief-state user-simulator",
    "speech acoustic phoneme prosody transcription spoken ASR waveform speaker pronunciation",
    "morphology inflection lemma stemming segmentation morpheme paradigm agglutinative affix \
     tokenizer",
    "semantic meaning compositional frame predicate logical-form AMR ontology word-sense \
     entailment",
    "retrieval ranking query relevance index reranking BM25 click-model search \
     dense-retrieval",
    "recommendation citation collaborative item preference cold-start scholarly \
     personalization implicit-feedback reader-profile",
    "topic LDA latent Dirichlet coherence clustering document mixture nonparametric LSA",
    "embedding word2vec vector distributional analogy similarity skip-gram GloVe fastText \
     sense-embedding",
    "language-model perplexity pretraining transformer autoregressive masked scaling prompt \
     instruction decoding",
    "generation text story data-to-text paraphrase style controllable fluency diversity \
     hallucination",
    "discourse coherence rhetorical argument connective narrative cohesion anaphora segment \
     essay",
    "image caption visual grounding video multimodal vision-language scene object region",
    "tweet social hashtag user-generated misinformation hate-speech rumor community online \
     moderation",
    "clinical biomedical patient medical drug protein radiology EHR diagnosis PubMed",
    "low-resource cross-lingual transfer zero-shot annotation-projection typology endangered \
     multilingual adaptation code-switching",
    "evaluation metric human-judgment agreement benchmark leaderboard reproducibility \
     significance NDCG crowdsourcing",
    "bias fairness gender stereotype debiasing toxicity privacy ethics demographic \
     accountability",
    "graph node edge knowledge-graph message-passing tree lattice hypergraph structure path",
];

pub const NOUNS: &str = "\
    model representation corpus dataset task method approach framework architecture encoder \
    attention layer feature classifier objective loss training inference baseline \
    performance accuracy annotation supervision context sequence token vocabulary sentence \
    paragraph word phrase span label network parameter distribution probability likelihood \
    estimator algorithm optimization gradient regularization generalization robustness \
    variance error analysis ablation experiment improvement score domain language user \
    system pipeline module component mechanism prior posterior sample instance example \
    finetuning knowledge memory state policy reward agent signal noise resource lexicon \
    schema template response output input prediction decision constraint heuristic beam \
    kernel matrix tensor dimension space subspace projection mapping function variable \
    factor interaction event role classification detection understanding reasoning \
    curriculum distillation ensemble calibration uncertainty sparsity efficiency latency \
    throughput budget supervisor teacher student vocabulary-size window history weighting";

pub const ADJECTIVES: &str = "\
    neural statistical probabilistic Bayesian discriminative generative supervised \
    unsupervised semi-supervised weakly-supervised large-scale efficient robust scalable \
    interpretable contextual hierarchical sparse dense joint incremental adaptive structured \
    end-to-end lightweight simple novel effective unified modular compositional fine-grained \
    coarse-grained domain-specific few-shot self-supervised contrastive adversarial \
    recurrent convolutional pretrained lexical syntactic pragmatic morphological temporal \
    causal explicit implicit global local deep shallow noisy balanced multi-task \
    character-level document-level sentence-level human-centred";

pub const VERBS: &str = "\
    improves outperforms learns captures combines leverages exploits predicts models encodes \
    aligns reduces increases achieves yields requires enables extends generalizes transfers \
    identifies extracts generates ranks retrieves estimates optimizes integrates represents \
    infers selects balances handles incorporates constrains matches reconstructs surpasses \
    simplifies stabilizes";

pub const METHOD_HEADS: &str = "\
    Graph Lex Syn Sem Meta Contra Poly Uni Cross Deep Hyper Proto Multi Auto Neuro Span Doc \
    Para";
pub const METHOD_TAILS: &str = "\
    BERT Net Former Align Parse Tag Sum QA Gen Rank Map Flow Walk Prompt Match Fuse";

pub const FIRST_NAMES: &str = "\
    Anna Ben Chen Daniel Elena Fatima Georg Hana Ivan Julia Kenji Laura Mehdi Nadia Oscar \
    Priya Qiang Rachel Sofia Tomás Uma Victor Wei Xin Yuki Zoë Ahmed Bruno Carla Dmitri \
    Emily Felix Grace Hugo Ines Jonas Kavya Lukas Maria Noah Olga Pablo Ravi Sara Thomas \
    Ulrike Valentina William Yara Benoît";

pub const LAST_NAMES: &str = "\
    Smith Müller Wang Li Zhang García Kim Nguyen Rossi Dubois Kowalski Ivanova Tanaka Sato \
    Patel Sharma Cohen Levi Johansson Nielsen Novak Silva Santos Costa Martin Bernard \
    Fischer Weber Schneider Brown Taylor Wilson Anderson Thompson Moore Clark Lewis Walker \
    Hall Young O'Brien Murphy Kelly Yılmaz Demir Haddad Khan Ali Okafor Mensah Søgaard \
    Crabbé";

/// Title templates: every one has 6 to 12 words.
pub const TITLE_TEMPLATES: &[&str] = &[
    "{A} {T} {N} for {A} {T} {N}",
    "{M}: {A} {N} for {T} {N}",
    "{M}: {A} {N} of {T} {N} with {A} {N}",
    "Towards {A} {T} {N} via {A} {N}",
    "Learning {A} {N} for {T} {N} from {A} {N}",
    "On the {N} of {A} {T} {N}",
    "{A} {N} and {A} {N} in {T} {N}",
    "{A} {T} {N} with {A} {N} and {T} {N}",
    "Revisiting {T} {N} in the Era of {A} {N}",
    "When Does {A} {N} Help {T} {N}?",
    "{A} {T} {N}: A Case Study of {T} {N}",
    "{T} {N}, {T} {N}, and {A} {N}",
    "\"{A}\" {N} Is Not All You Need for {T} {N}",
    "{A} {N} for {T}, {T}, and {T} {N}",
    "What Makes a Good {T} {N}? An Empirical {N}",
    "A {A} {N} of {T} {N} Across {K} Languages",
    "Rethinking \"{A} {N}\" in {A} {T} {N}",
    "{M}: Towards {A} and {A} {T} {N}",
];

/// Forced for the first paper, so that even a tiny study has a title with a comma and a
/// double quote.
pub const QUOTE_COMMA_TITLE: &str = "\"{A}\" {N}, {N}, and {N} for {T} {N}";

pub const SENTENCE_TEMPLATES: &[&str] = &[
    "we propose a {A} {N} for {T} {N} that {V} the {N} of {A} {T} {N}.",
    "existing {T} {N} often relies on {A} {N} and ignores the {N} of the {N}.",
    "in this paper we study the {N} of {A} {N} in {T} {N}.",
    "our {N} {V} a {A} {N} with {A} {T} {N}.",
    "experiments on the {M} benchmark show that the {N} {V} strong {N} by {X} points.",
    "we further show that {A} {N} {V} the {N} of {T} {N} across {K} settings.",
    "the {N} is trained with a {A} {N} on {A} {T} {N}.",
    "to address this {N}, we introduce {M}, a {A} {N} based on {A} {T} {N}.",
    "results indicate that {A} {T} {N} {V} {A} {N} in both {A} and {A} settings.",
    "we release our {N} and {N} to support future work on {T} {N}.",
    "a detailed {N} reveals that the {N} {V} {A} {N} rather than {A} {N}.",
    "compared with a {A} {N}, our {N} {V} {N} by {X} percent on average.",
    "this is particularly important for {A} {T} {N}, where {A} {N} is scarce.",
    "we also analyse the {N} of the {T} {N} and discuss its {N} for {A} {N}.",
    "finally, we demonstrate that the {N} {V} {T} {N} to {A} {N}.",
    "unlike prior work, the {A} {N} {V} {T} {N} without any {A} {N}.",
    "{T} {N} is a central problem in natural language processing.",
    "however, most {A} {N} {V} only {A} {N} and fail on {A} {T} {N}.",
    "we evaluate on {K} {T} datasets and report {A} gains over the {N}.",
    "the key idea is to treat {T} {N} as a {A} {N} over {A} {N}.",
];
