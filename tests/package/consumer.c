/* Steps an asset for 30 steps through the installed library: the header's
 * version must be the library's, every call must succeed. Built with
 * CONSUMER_CALLS_VULKAN it also calls the Vulkan loader it links, as an
 * engine would. */
#include <sinew/sinew.h>

#ifdef CONSUMER_CALLS_VULKAN
#include <vulkan/vulkan.h>
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: consumer ASSET.snw\n");
        return 2;
    }
    if (sinew_version() != SINEW_VERSION) {
        fprintf(stderr, "consumer: headers are version %u, the library %u\n", (unsigned)SINEW_VERSION,
                (unsigned)sinew_version());
        return 1;
    }
#ifdef CONSUMER_CALLS_VULKAN
    uint32_t api = 0;
    if (vkEnumerateInstanceVersion(&api) != VK_SUCCESS || api < VK_API_VERSION_1_1) {
        fprintf(stderr, "consumer: the application's own call to the Vulkan loader failed\n");
        return 1;
    }
    printf("consumer: the application's loader says Vulkan %u.%u\n", VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api));
#endif
    sinew_asset *asset = NULL;
    sinew_context *ctx = NULL;
    sinew_body *body = NULL;
    sinew_context_desc cd = sinew_context_desc_default();
    cd.validation = 1;
    sinew_result r = sinew_asset_load(argv[1], NULL, &asset);
    if (r == SINEW_RESULT_OK)
        r = sinew_context_create(&cd, &ctx);
    sinew_body_desc bd = sinew_body_desc_default();
    if (r == SINEW_RESULT_OK)
        r = sinew_body_create(ctx, asset, &bd, &body);
    sinew_step_params p = sinew_step_params_default();
    for (int i = 0; i < 30 && r == SINEW_RESULT_OK; i++)
        r = sinew_body_step(body, &p);
    uint32_t n = body ? sinew_body_get_particle_count(body) : 0;
    float *xyz = malloc(sizeof *xyz * 3 * (n + 1));
    if (r == SINEW_RESULT_OK)
        r = sinew_body_read_positions(body, xyz, n);
    double lowest = INFINITY;
    for (uint32_t i = 0; r == SINEW_RESULT_OK && i < n; i++)
        lowest = fmin(lowest, xyz[3 * i + 1]);
    if (r == SINEW_RESULT_OK)
        printf("consumer: sinew %d.%d.%d on %s: %u particles, 30 steps, lowest y %.3f m, %u validation messages\n",
               SINEW_VERSION_MAJOR, SINEW_VERSION_MINOR, SINEW_VERSION_PATCH,
               sinew_context_get_device_info(ctx).name, n, lowest, sinew_context_get_validation_message_count(ctx));
    else
        fprintf(stderr, "consumer: %s\n", sinew_result_string(r));
    int messages = ctx ? (int)sinew_context_get_validation_message_count(ctx) : 0;
    free(xyz);
    sinew_body_destroy(body);
    sinew_context_destroy(ctx);
    sinew_asset_destroy(asset);
    return r == SINEW_RESULT_OK && messages == 0 ? 0 : 1;
}
