package retrieval

// Defaults tuned on the shared development set (see package retrieval/eval and
// the tuning notes in eval's tests). A zero Fusion or EmbeddedOptions is valid
// too; these are what the operator uses.
var (
	DefaultFusion = Fusion{K: DefaultRRFK}

	DefaultEmbeddedOptions = EmbeddedOptions{TitleDescription: true}
)
