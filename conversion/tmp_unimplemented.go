package conversion

import "errors"

func convert(obj map[string]interface{}, toVersion string) (map[string]interface{}, error) {
	return nil, errors.New("conversion: not implemented yet")
}
