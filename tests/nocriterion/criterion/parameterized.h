/* TSan stand-in (see criterion.h): <criterion/parameterized.h> brings nothing more;
 * files that need more of Criterion do not opt in to the TSan build. */
#include "criterion.h"
