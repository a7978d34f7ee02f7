//===- Diffusion.cpp - the compiled diffusion operator --------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Runtime/Devices/Diffusion.h"
#include "easyml/Runtime/Devices/GpuDriver.h"

#include <algorithm>

using namespace easyml::rt;

bool easyml::rt::diffuseOnHost(const easyml_variant &variant,
                               const easyml_diffusion_args &args) {
  if (!variant.diffuse)
    return false;
  if (args.end > args.begin)
    variant.diffuse(&args);
  return true;
}

std::unique_ptr<GpuDiffusion>
GpuDiffusion::create(GpuContext &ctx, const GpuDeviceInfo &info,
                     const easyml_variant &variant, std::string &error) {
  if (variant.device == EASYML_DEVICE_CPU || !variant.diffuse_kernel) {
    error = std::string("variant ") + variant.name +
            " has no diffusion kernel (a CPU variant, or compiled for an ABI "
            "before 6)";
    return nullptr;
  }
  const easyml_gpu_image *image = nullptr;
  void *module = ctx.loadVariant(variant, info, image, error);
  if (!module)
    return nullptr;
  void *kernel = ctx.function(module, variant.diffuse_kernel, error);
  if (!kernel)
    return nullptr;
  // The block size chosen for the model's kernels, within the launch bound
  // every kernel of the variant is compiled for.
  int64_t block = image && image->block_size > 0 ? image->block_size : 128;
  block = std::min<int64_t>(block, EASYML_GPU_MAX_BLOCK_SIZE);
  return std::unique_ptr<GpuDiffusion>(
      new GpuDiffusion(ctx, kernel, static_cast<unsigned>(block)));
}

bool GpuDiffusion::launch(const easyml_diffusion_args &args,
                          std::string &error) {
  int64_t points = args.end - args.begin;
  if (points <= 0)
    return true;
  int64_t blocks = (points + blockSize_ - 1) / blockSize_;
  // The kernel takes the struct by value: the driver copies it now.
  easyml_diffusion_args copy = args;
  void *params[] = {&copy};
  return ctx_.launch(kernel_, static_cast<unsigned>(blocks), blockSize_, params,
                     error);
}
