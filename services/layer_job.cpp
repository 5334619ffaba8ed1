#include "layer_job.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <exception>
#include <filesystem>

#include "batch_job.hpp"
#include "fs/file_access.hpp"
#include "fs/io/image_io.hpp"
#include "fs/run_control.hpp"
#include "layers.hpp"

namespace fs::batch {
namespace {

std::string safeName(const std::string& text) {
    std::string out;
    for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '-';
    return out.empty() ? std::string("layer") : out;
}

double largestDifference(const std::vector<Image>& a, const std::vector<Image>& b) {
    double worst = 0.0;
    for (std::size_t m = 0; m < a.size() && m < b.size(); ++m) {
        const ConstImageView x = a[m].cview(), y = b[m].cview();
        const std::size_t samples = static_cast<std::size_t>(x.width) * x.channels;
        for (int row = 0; row < x.height; ++row)
            for (std::size_t i = 0; i < samples; ++i) {
                double u = 0, v = 0;
                switch (x.depth) {
                case Depth::U8: u = x.row<std::uint8_t>(row)[i], v = y.row<std::uint8_t>(row)[i]; break;
                case Depth::U16: u = x.row<std::uint16_t>(row)[i], v = y.row<std::uint16_t>(row)[i]; break;
                case Depth::F32: u = x.row<float>(row)[i], v = y.row<float>(row)[i]; break;
                }
                worst = std::max(worst, std::fabs(u - v));
            }
    }
    return worst;
}

}  // namespace

LayerPlan planLayer(const LayerOptions& options) {
    LayerPlan plan;
    plan.options = options;
    auto refuse = [&plan](LayerPlan::Problem p, std::string why) {
        plan.problem = p;
        plan.error = std::move(why);
        return plan;
    };
    if (options.inputs.empty()) return refuse(LayerPlan::Problem::Usage, "a layer needs its input images");
    if (options.bankPath.empty()) return refuse(LayerPlan::Problem::Usage, "a layer needs a kernel bank file");
    if (options.outDir.empty()) return refuse(LayerPlan::Problem::Usage, "a layer needs an output folder");
#if defined(FS_HAVE_KERNEL_FILES)
    std::string why;
    if (!loadBankFile(options.bankPath, plan.bank, &why)) return refuse(LayerPlan::Problem::Input, why);
#else
    return refuse(LayerPlan::Problem::Input,
                  options.bankPath + ": kernel bank files are JSON, and this FilterStudio was built without nlohmann-json");
#endif
    if (static_cast<int>(options.inputs.size()) != plan.bank.inputs)
        return refuse(LayerPlan::Problem::Usage, options.bankPath + " has " + std::to_string(plan.bank.inputs) +
                                                     " input(s); give as many images, not " +
                                                     std::to_string(options.inputs.size()));
    std::string ext = options.format;
    if (!ext.empty() && ext.front() == '.') ext.erase(0, 1);
    if (ext.empty()) {
        const std::string own = lowerExtension(options.inputs[0]);
        ext = plan.bank.output.floatOutput ? std::string("tif") : own.size() > 1 ? own.substr(1) : std::string("png");
    }
    if (plan.bank.output.floatOutput && ext != "tif" && ext != "tiff")
        return refuse(LayerPlan::Problem::Usage, "the bank's float output is written as 32-bit float TIFF: the format must be tif");
    for (int m = 0; m < plan.bank.outputs; ++m) {
        const std::string path =
            (std::filesystem::path(options.outDir) / (safeName(plan.bank.name) + "-" + std::to_string(m) + "." + ext)).string();
        for (const std::string& in : options.inputs) {
            std::error_code ec;
            if (std::filesystem::equivalent(in, path, ec))
                return refuse(LayerPlan::Problem::Usage, path + ": an output would overwrite an input");
        }
        const files::OutputCheck check = files::checkOutput(path);
        if (check.status == files::OutputCheck::Status::Refused) return refuse(LayerPlan::Problem::Input, path + ": " + check.problem);
        if (check.status == files::OutputCheck::Status::Exists && !options.overwrite)
            return refuse(LayerPlan::Problem::Input, path + ": the file exists; allow overwriting to replace it");
        plan.outputs.push_back(path);
    }
    return plan;
}

LayerJobResult runLayerJob(const LayerPlan& plan, LayerRunner& runner, Backend& backend, const std::string& mode) {
    LayerJobResult result;
    try {
        std::vector<Image> images;
        io::LoadOptions load;
        if (plan.options.maxPixels) load.maxPixels = plan.options.maxPixels;
        for (const std::string& path : plan.options.inputs) {
            io::LoadResult loaded = io::loadImage(path, load);
            if (!loaded.ok()) {
                result.error = loaded.error;
                result.inputProblem = true;
                return result;
            }
            images.push_back(std::move(loaded.image));
        }
        std::vector<ConstImageView> views;
        for (const Image& img : images) views.push_back(img.cview());
        if (std::string why = validateLayer(plan.bank, views); !why.empty()) {
            result.error = plan.options.bankPath + ": " + why;
            result.inputProblem = true;
            return result;
        }
        result.width = views[0].width;
        result.height = views[0].height;
        result.channels = views[0].channels;
        result.depth = views[0].depth;
        // Every output's format must hold the result before anything is filtered.
        const Depth outDepth = plan.bank.output.floatOutput ? Depth::F32 : result.depth;
        for (const std::string& out : plan.outputs)
            if (const io::OutputFormatCheck format = io::checkOutputFormat(out, outDepth, result.channels); !format.ok()) {
                result.error = out + ": " + format.refusal;
                result.inputProblem = true;
                return result;
            }
        // A RunControl on this thread (fs/run_control.hpp) stops the job between its stages.
        const auto cancelled = [&result] {
            if (!runCancelled()) return false;
            result.error = kRunCancelled;
            return true;
        };
        if (cancelled()) return result;
        result.layer = runner.run(plan.bank, views);
        if (!result.layer.ok()) {
            result.error = result.layer.error;
            return result;
        }
        if (plan.options.compare) {
            if (cancelled()) return result;
            result.oneByOne = runLayerOneByOne(backend, mode, plan.bank, views);
            if (!result.oneByOne->ok()) {
                result.error = result.oneByOne->error == kRunCancelled ? result.oneByOne->error
                                                                        : "one by one: " + result.oneByOne->error;
                return result;
            }
            result.largestDifference = largestDifference(result.layer.outputs, result.oneByOne->outputs);
        }
        if (cancelled()) return result;  // nothing written
        if (!plan.options.filterAlpha)
            for (Image& out : result.layer.outputs)
                if (alphaCopyable(views[0], out.cview())) copyAlpha(views[0], out.view());
        std::error_code ec;
        std::filesystem::create_directories(plan.options.outDir, ec);
        if (ec) {
            result.error = plan.options.outDir + ": could not create the folder: " + ec.message();
            result.inputProblem = true;
            return result;
        }
        for (std::size_t m = 0; m < plan.outputs.size(); ++m) {
            std::string why;
            if (!io::saveImage(plan.outputs[m], result.layer.outputs[m].cview(), io::SaveOptions{plan.options.overwrite}, &why)) {
                result.error = why;
                result.inputProblem = true;
                return result;
            }
            result.written.push_back(plan.outputs[m]);
        }
    } catch (const std::exception& e) {
        result.error = std::string("layer: ") + e.what();
    }
    return result;
}

}  // namespace fs::batch
