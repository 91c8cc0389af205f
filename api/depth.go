package api

// JSONNestsDeeper reports whether the JSON text data nests more than
// maxDepth arrays and objects, before any decoder reads it. Brackets inside
// strings do not count; malformed JSON is left to the decoder.
func JSONNestsDeeper[T ~string | ~[]byte](data T, maxDepth int) bool {
	depth, inString := 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inString && c == '\\':
			i++ // the escaped byte
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > maxDepth {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}
