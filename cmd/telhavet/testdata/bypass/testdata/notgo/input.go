this file is the input of a parser's test, not Go: nothing to analyze.
