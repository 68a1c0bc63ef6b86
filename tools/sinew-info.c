/* sinew-info: lists the Vulkan devices sinew can use and the one it picks. */
#include <sinew/sinew.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    sinew_context_desc d = sinew_context_desc_default();
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--validation")) {
            d.validation = 1;
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            d.device = argv[++i];
        } else {
            fprintf(stderr, "usage: sinew-info [--device NAME|INDEX] [--validation]\n");
            return strcmp(argv[i], "--help") && strcmp(argv[i], "-h") ? 2 : 0;
        }
    }
    d.logger.level = SINEW_LOG_DEBUG;
    sinew_context *ctx;
    sinew_result r = sinew_context_create(&d, &ctx);
    if (r != SINEW_RESULT_OK) {
        fprintf(stderr, "sinew-info: %s\n", sinew_result_string(r));
        return 1;
    }
    sinew_device_info info = sinew_context_get_device_info(ctx);
    printf("device:            %s\n", info.name);
    printf("driver:            %s\n", info.driver);
    printf("vendor/device id:  0x%04x / 0x%04x\n", info.vendor_id, info.device_id);
    printf("Vulkan:            %u.%u.%u\n", info.api_version >> 22, (info.api_version >> 12) & 0x3ff,
           info.api_version & 0xfff);
    printf("timestamp period:  %g ns\n", info.timestamp_period_ns);
    printf("max storage range: %llu bytes\n", (unsigned long long)info.max_storage_buffer_range);
    sinew_context_destroy(ctx);
    return 0;
}
