/* version.c: the versions of the libraries core runs on, as linked (not as
 * compiled), for `impactcv --version` and results.json. */
#include <gsl/gsl_version.h>
#include <jansson.h>
#include <yaml.h>

#include "core/core.h"

const char *icv_gsl_version(void) { return gsl_version; }
const char *icv_libyaml_version(void) { return yaml_get_version_string(); }
const char *icv_jansson_version(void) { return jansson_version_str(); }
