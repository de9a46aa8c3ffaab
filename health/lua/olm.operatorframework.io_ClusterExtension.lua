-- Argo CD health check for olm.operatorframework.io/ClusterExtension (odlm-render, health/),
-- OLM v1's install of an operator. Healthy once operator-controller reports the bundle
-- installed (Installed True) and nothing rolling out (Progressing True, reason Succeeded), so
-- that a sync wave waits for the operator and its CRDs; Degraded when it has stopped trying
-- (Progressing False: Blocked, InvalidConfiguration) or a rollout passed its deadline;
-- Progressing while it installs, upgrades or retries. Uses only Lua's base and table
-- libraries and checks every field's type.

local function assess(obj)
  local status = tbl(obj.status) or {}
  local conds = byType(conditions(status.conditions))
  local installed = conds["Installed"]
  local progressing = conds["Progressing"]
  local install = tbl(status.install) or {}
  local bundle = tbl(install.bundle) or {}
  local name = str(bundle.name)
  if name ~= "" and str(bundle.version) ~= "" then
    name = name .. " (" .. str(bundle.version) .. ")"
  end
  local deprecated = conds["Deprecated"]
  local note = ""
  if deprecated ~= nil and str(deprecated.status) == "True" then
    note = "; deprecated: " .. str(deprecated.message)
  end

  if progressing == nil and installed == nil then
    return "Progressing", "Waiting for operator-controller to resolve the ClusterExtension"
  end
  local preason = ""
  if progressing ~= nil then preason = str(progressing.reason) end
  if progressing ~= nil and str(progressing.status) == "False" then
    return "Degraded", detail(progressing)
  end
  if preason == "ProgressDeadlineExceeded" then
    return "Degraded", join(": ", "Rollout did not finish in time", str(progressing.message))
  end
  local isInstalled = installed ~= nil and str(installed.status) == "True"
  if isInstalled and (progressing == nil or preason == "Succeeded") then
    return "Healthy", join(" ", name, "is installed") .. note
  end
  if isInstalled then
    local what = join(" ", name, "is installed;", preason)
    return "Progressing", join(": ", what, str(progressing.message))
  end
  local msg = ""
  if progressing ~= nil then msg = str(progressing.message) end
  return "Progressing", join(": ", "Installing", join(" ", preason, msg))
end
