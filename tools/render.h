/* sinew-sim's pictures: an offscreen Vulkan renderer on sinew's own device
 * (sinew_context_get_vulkan) that draws a body straight from its position and
 * normal buffers (no copy), with the ground and the colliders of the step,
 * and writes PNG files (libpng). */
#ifndef SINEW_TOOLS_RENDER_H
#define SINEW_TOOLS_RENDER_H

#include <sinew/sinew.h>
#include <volk.h>

typedef struct render render;

typedef struct render_camera {
    float eye[3], target[3]; /* m */
    float fov_deg;           /* vertical field of view */
} render_camera;

/* A camera that frames the box [lo, hi] (and the ground under it) from the
 * front, above and to the right. */
render_camera render_camera_framing(const float lo[3], const float hi[3]);

/* NULL, with a message on stderr, when the context's queue cannot draw or
 * Vulkan fails. The body must outlive the renderer; triangles: 3 particle
 * indices each. */
render *render_create(sinew_context *ctx, sinew_body *body, const uint32_t *triangles, uint32_t triangle_count,
                      uint32_t width, uint32_t height);
void render_destroy(render *r);

/* One more body drawn (from its own buffers, as the first; in a colour of
 * its own), up to RENDER_MAX_BODIES: the other bodies of a world. The body
 * must outlive the renderer, and its world's batches must be built (they
 * are once a step or a body call has run after the last body joined). */
#define RENDER_MAX_BODIES 64
int render_add_body(render *r, sinew_body *body, const uint32_t *triangles, uint32_t triangle_count);

/* Draws these triangles of the body from now on (e.g. fewer after a cut). */
int render_set_triangles(render *r, const uint32_t *triangles, uint32_t triangle_count);

/* The mesh collider's triangles (3 floats per vertex, its own frame), drawn
 * turned by the step's collider_rotation and moved by its collider_position
 * when p->collider. */
int render_set_collider(render *r, const float *xyz, uint32_t vertex_count, const uint32_t *triangles,
                        uint32_t triangle_count);

/* Mesh k of the collider list (the k-th added; what sinew_shape.mesh names):
 * its triangles in its own frame, drawn at the pose of each mesh shape of the
 * step that names it. */
#define RENDER_MAX_MESHES 16
int render_add_mesh(render *r, const float *xyz, uint32_t vertex_count, const uint32_t *triangles,
                    uint32_t triangle_count);

/* Draws the body as the last step left it, the ground (turned to its
 * normal), sphere, capsule, box and mesh collider of p where present and the
 * shapes of its collider list (p->shapes, each at its pose), and writes an
 * RGB PNG to path. 1 on success. */
int render_frame(render *r, const sinew_step_params *p, const render_camera *camera, const char *path);

/* The same drawing blitted into target (a swapchain image of width x height,
 * made with transfer-destination usage, left in PRESENT_SRC layout), after
 * `acquired` is signalled; signals `rendered`. With screenshot (a path; the
 * image then needs transfer-source usage too, and no more pixels than the
 * renderer's), target itself is read back and written as PNG, its channels
 * in BGRA order when bgra. Waits for the work. */
int render_present(render *r, const sinew_step_params *p, const render_camera *camera, VkImage target,
                   uint32_t width, uint32_t height, VkSemaphore acquired, VkSemaphore rendered, const char *screenshot,
                   int bgra);

/* The camera's view and projection (Vulkan clip space), column-major. */
void render_view_projection(const render_camera *c, float aspect, float m[16]);

#endif
