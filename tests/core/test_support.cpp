// The per-sample helpers of test_support.hpp, compiled once with the build's
// optimisation: the test sources themselves compile at -O0 (tests/CMakeLists.txt).
#include "test_support.hpp"

namespace fs::test {

Image randomImage(int width, int height, int channels, Depth depth, std::mt19937& rng) {
    Image img(width, height, channels, depth);
    const int n = width * channels;
    for (int y = 0; y < height; ++y) {
        switch (depth) {
        case Depth::U8: {
            std::uniform_int_distribution<int> d(0, 255);
            for (int i = 0; i < n; ++i) samplesOf<std::uint8_t>(img, y)[i] = static_cast<std::uint8_t>(d(rng));
            break;
        }
        case Depth::U16: {
            std::uniform_int_distribution<int> d(0, 65535);
            for (int i = 0; i < n; ++i) samplesOf<std::uint16_t>(img, y)[i] = static_cast<std::uint16_t>(d(rng));
            break;
        }
        case Depth::F32: {
            std::uniform_real_distribution<float> d(-1.0f, 1.0f);
            for (int i = 0; i < n; ++i) samplesOf<float>(img, y)[i] = d(rng);
            break;
        }
        }
    }
    return img;
}

Kernel randomKernel(int width, int height, std::mt19937& rng) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> w(static_cast<std::size_t>(width) * height);
    for (float& v : w) v = d(rng);
    return Kernel(width, height, std::move(w));
}

double sampleAt(ConstImageView v, int x, int y, int c) {
    const std::size_t i = static_cast<std::size_t>(x) * v.channels + c;
    switch (v.depth) {
    case Depth::U8: return v.row<std::uint8_t>(y)[i];
    case Depth::U16: return v.row<std::uint16_t>(y)[i];
    case Depth::F32: break;
    }
    return v.row<float>(y)[i];
}

::testing::AssertionResult imagesMatch(ConstImageView actual, ConstImageView expected, Tolerance tol) {
    if (actual.width != expected.width || actual.height != expected.height || actual.channels != expected.channels ||
        actual.depth != expected.depth) {
        return ::testing::AssertionFailure()
               << "shape differs: " << actual.width << "x" << actual.height << "x" << actual.channels << " "
               << depthName(actual.depth) << " vs expected " << expected.width << "x" << expected.height << "x"
               << expected.channels << " " << depthName(expected.depth);
    }
    long long bad = 0;
    double worst = -1.0;
    std::ostringstream first;
    for (int y = 0; y < actual.height; ++y)
        for (int x = 0; x < actual.width; ++x)
            for (int c = 0; c < actual.channels; ++c) {
                const double a = sampleAt(actual, x, y, c);
                const double e = sampleAt(expected, x, y, c);
                const double allowed = tol.absolute + tol.relative * std::fabs(e);
                const double diff = std::fabs(a - e);
                if (!(diff <= allowed)) {  // also catches NaN
                    if (bad == 0) first << "first at (" << x << "," << y << ") channel " << c << ": got " << a
                                        << ", expected " << e << ", allowed " << allowed;
                    ++bad;
                }
                worst = std::max(worst, std::isnan(diff) ? INFINITY : diff);
            }
    if (bad == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << bad << " of " << (long long)actual.width * actual.height * actual.channels
                                         << " samples differ; " << first.str() << "; largest difference " << worst;
}

::testing::AssertionResult imagesMatch(const Image& actual, const Image& expected, Tolerance tol) {
    return imagesMatch(actual.cview(), expected.cview(), tol);
}

}  // namespace fs::test
