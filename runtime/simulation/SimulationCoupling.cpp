//===- SimulationCoupling.cpp - a process's cells coupled to a tissue ----===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "SimulationCoupling.h"
#include "Scheduler.h"

using namespace easyml::rt;

namespace {

class SchedulerCoupling final : public TissueCoupling {
public:
  SchedulerCoupling(Simulation &sim, Scheduler &scheduler)
      : sim_(sim), scheduler_(scheduler) {}

  const easyml_variant &variant() const override { return sim_.variant(); }
  double *vm() override { return sim_.values().vm(); }
  void keepExternalsOnDevices(bool keep) override {
    scheduler_.keepExternals(keep);
  }
  bool sendHalos(const DiffusionTask &task, bool always) override {
    return scheduler_.sendHalos(task, always);
  }
  bool diffuse(const DiffusionTask &task) override {
    return scheduler_.diffuse(task);
  }
  double haloSeconds() const override { return scheduler_.haloSeconds(); }
  bool releaseActivation(bool keep) override {
    return scheduler_.releaseActivation(keep);
  }
  void dropActivation() override { scheduler_.dropActivation(); }
  bool syncVm() override { return scheduler_.syncExternals(); }
  void addStepSeconds(double seconds) override {
    scheduler_.addStepSeconds(seconds);
  }
  void fuseDiffusion(FusedStep *step) override { scheduler_.fuse(step); }
  bool canFuse() const override { return scheduler_.canFuse(); }
  bool lastWaveFused() const override { return scheduler_.lastWaveFused(); }
  void keepStepCopies(bool keep) override { scheduler_.keepStepCopies(keep); }
  bool stepCopiesArmed() const override { return scheduler_.stepCopiesArmed(); }
  bool keepStepCopy(bool &held) override {
    bool ok = scheduler_.keepStepCopy();
    held = ok && scheduler_.stepCopyHeld();
    return ok;
  }
  bool recoverStep(int64_t step) override {
    return scheduler_.recoverStep(step);
  }
  std::vector<DeviceLoss> lostDevices() override {
    std::vector<DeviceLoss> out;
    for (const RecoveryRecord &r : scheduler_.recoveries())
      out.push_back({r.device, r.error, r.survivors, r.step});
    return out;
  }

private:
  Simulation &sim_;
  Scheduler &scheduler_;
};

} // namespace

std::unique_ptr<TissueCoupling>
easyml::rt::makeTissueCoupling(Simulation &sim, Scheduler &scheduler) {
  return std::make_unique<SchedulerCoupling>(sim, scheduler);
}
