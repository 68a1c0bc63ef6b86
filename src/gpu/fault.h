/* Fault injection for tests. Internal: not part of the public API. */
#ifndef SINEW_GPU_FAULT_H
#define SINEW_GPU_FAULT_H

#include <sinew/context.h>

/* The next submit reports VK_ERROR_DEVICE_LOST without submitting, and the
 * context behaves as lost from then on. lavapipe cannot lose its device; this
 * drives the same path a real loss takes. */
void sinew_context_inject_device_loss(sinew_context *ctx);

#endif
