// The public headers in a C++ translation unit: they compile as C++, their
// declarations have C linkage, and the descriptors default-construct through
// the C functions.
#include <sinew/sinew.h>

#include <cstdio>

int main()
{
    sinew_body_desc desc = sinew_body_desc_default();
    sinew_step_params params = sinew_step_params_default();
    sinew_context_desc context = sinew_context_desc_default();
    static_assert(SINEW_VERSION == SINEW_MAKE_VERSION(SINEW_VERSION_MAJOR, SINEW_VERSION_MINOR, SINEW_VERSION_PATCH),
                  "version macros agree");
    std::printf("consumer_cxx: sinew %u, %u substeps, dt %g s, validation %d, result text \"%s\"\n",
                static_cast<unsigned>(sinew_version()), desc.substeps, static_cast<double>(params.dt),
                context.validation, sinew_result_string(SINEW_RESULT_ERROR_UNSTABLE));
    return sinew_version() == SINEW_VERSION && desc.cookie != 0 ? 0 : 1;
}
