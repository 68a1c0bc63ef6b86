#version 450
// The application's renderer in test_engine: sinew's positions buffer as a
// vertex buffer, the cloth seen from above (x, z of a 1 m square about the
// origin fill the image).
layout(location = 0) in vec4 position; // x, y, z, inverse mass

void main()
{
    gl_Position = vec4(position.x * 1.8, position.z * 1.8, 0.5, 1.0);
    gl_PointSize = 1.0;
}
