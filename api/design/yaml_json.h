/*
 * yaml_json.h - a YAML document (CloudFormation and SAM templates) as the
 * JSON tree the rest of api/ reads.
 *
 * Mappings become objects, sequences arrays; plain scalars that read as
 * integers, reals, booleans or null become those, everything else (and every
 * quoted scalar) a string. CloudFormation's short-form intrinsic functions
 * (!Ref x, !Sub "...", !GetAtt a.b, ...) become their long form
 * ({"Ref": "x"}, {"Fn::Sub": "..."}), so that the template reader can name
 * them in its errors. Anchors and aliases are refused.
 */
#ifndef DDB_API_YAML_JSON_H
#define DDB_API_YAML_JSON_H

#include <jansson.h>
#include <stddef.h>

/* The first document of text as a new JSON value, or NULL with *line (1-based)
 * and why (what the parser said) filled in. */
json_t *yaml_to_json(const char *text, size_t len, size_t *line, char *why, size_t why_size);

#endif
