#pragma once
// The image view's GLSL, shared with the frame benchmark so that it draws a
// frame exactly as the studio's view does. Compiles as desktop GLSL 1.20 and
// as ES 1.00 (Qt defines the precision qualifiers away on desktop; a plain GL
// program prepends kDesktopPrelude). No Qt or GL headers here.
namespace fs::widgets::view_shaders {

inline constexpr const char* kDesktopPrelude = "#version 120\n#define lowp\n#define mediump\n#define highp\n";

inline constexpr const char* kVertex = R"(
attribute vec2 corner;
uniform vec2 topLeft;    // widget pixels
uniform vec2 extent;     // image size on screen, widget pixels
uniform vec2 viewport;   // widget size
varying vec2 uv;
void main() {
    uv = corner;
    vec2 p = topLeft + corner * extent;
    gl_Position = vec4(p.x / viewport.x * 2.0 - 1.0, 1.0 - p.y / viewport.y * 2.0, 0.0, 1.0);
}
)";

inline constexpr const char* kFragment = R"(
varying highp vec2 uv;
uniform sampler2D originalTex;
uniform sampler2D resultTex;
uniform sampler2D differenceTex;
uniform int mode;            // 0 original, 1 result, 2 split, 3 difference
uniform highp float splitU;
uniform highp float lineHalfWidthU;
void main() {
    // Fetch only what the mode shows: each fetch of a minified 8K texture costs the frame.
    lowp vec4 c;
    if (mode == 1) c = texture2D(resultTex, uv);
    else if (mode == 3) c = texture2D(differenceTex, uv);
    else {
        c = texture2D(originalTex, uv);
        if (mode == 2) {
            if (uv.x >= splitU) c = texture2D(resultTex, uv);
            if (abs(uv.x - splitU) < lineHalfWidthU) c = vec4(1.0, 0.8, 0.1, 1.0);
        }
    }
    gl_FragColor = vec4(c.rgb, 1.0);
}
)";

}  // namespace fs::widgets::view_shaders
