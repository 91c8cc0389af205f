package migrate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// attributeVar matches 1.30 namedResources CEL variables: attributes.<type>.
var attributeVar = regexp.MustCompile(`\battributes\.([a-z]+)\b`)

// bareAttributes matches what is left of the 1.30 variable after rewriting.
var bareAttributes = regexp.MustCompile(`(^|[^.\w])attributes\b`)

// translateSelector rewrites a 1.30 namedResources selector of driver into a
// 1.31 device selector (k8s.io/dynamic-resource-allocation v0.31 cel):
//
//	attributes.bool|int|string|version["n"]  ->  device.attributes["<driver>"]["n"]
//	attributes.quantity["n"]                 ->  device.capacity["<driver>"]["n"]
//
// An unqualified name belongs to the driver's domain. 1.31 has no quantity
// attributes, so quantities are read as capacity (with a note). List-valued
// attributes have no 1.31 type and fail. String literals are left alone.
func translateSelector(driver, expr string) (string, []string, error) {
	var notes []string
	var b strings.Builder
	for _, part := range splitLiterals(expr) {
		if part.literal {
			b.WriteString(part.text)
			continue
		}
		var failure error
		rewritten := attributeVar.ReplaceAllStringFunc(part.text, func(m string) string {
			typ := attributeVar.FindStringSubmatch(m)[1]
			switch typ {
			case "bool", "int", "string", "version":
				return "device.attributes[" + strconv.Quote(driver) + "]"
			case "quantity":
				notes = append(notes, "quantity attributes are read as the device's capacity in 1.31")
				return "device.capacity[" + strconv.Quote(driver) + "]"
			}
			failure = fmt.Errorf("attributes.%s has no 1.31 equivalent", typ)
			return m
		})
		if failure != nil {
			return "", nil, failure
		}
		if bareAttributes.MatchString(rewritten) {
			return "", nil, fmt.Errorf("the attributes variable is used in a way that cannot be translated")
		}
		b.WriteString(rewritten)
	}
	return b.String(), notes, nil
}

type exprPart struct {
	text    string
	literal bool
}

// splitLiterals splits a CEL expression into string literals ('…', "…",
// with backslash escapes) and the code between them.
func splitLiterals(expr string) []exprPart {
	var parts []exprPart
	start := 0
	for i := 0; i < len(expr); i++ {
		q := expr[i]
		if q != '"' && q != '\'' {
			continue
		}
		if i > start {
			parts = append(parts, exprPart{text: expr[start:i]})
		}
		j := i + 1
		for j < len(expr) && expr[j] != q {
			if expr[j] == '\\' {
				j++
			}
			j++
		}
		j = min(j, len(expr)-1)
		parts = append(parts, exprPart{text: expr[i : j+1], literal: true})
		start, i = j+1, j
	}
	if start < len(expr) {
		parts = append(parts, exprPart{text: expr[start:]})
	}
	return parts
}
