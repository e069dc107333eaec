// Module bypass is an adversarial fixture: each line marked "// bypass"
// reaches what only the key authority may reach, in a way the gate must
// report; every other line must not be reported. It lies in testdata, out
// of the repository's own gate, and is a go.work workspace of its own with
// the real telha.dev/core.
module telha.dev/bypass

go 1.26.0
