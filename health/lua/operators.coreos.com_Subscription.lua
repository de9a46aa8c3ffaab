-- Argo CD health check for operators.coreos.com/Subscription (odlm-render, health/).
-- Healthy only once OLM reports the installed CSV at the latest known version, so a
-- sync wave waits for the CSV to exist. Manual approval: a pending upgrade leaves an
-- installed operator Healthy; a first install awaiting approval is Suspended.
-- Uses only Lua's base and table libraries (what Argo CD opens for argocd-cm scripts)
-- and checks every field's type, so no object shape can raise an error.

local function assess(obj)
  local spec = tbl(obj.spec) or {}
  local status = tbl(obj.status)
  if status == nil or next(status) == nil then
    return "Progressing", "Waiting for OLM to resolve the Subscription"
  end

  local conds = byType(conditions(status.conditions, "True"))
  local state = str(status.state)
  local installed = str(status.installedCSV)
  local current = str(status.currentCSV)
  local ref = tbl(status.installPlanRef) or tbl(status.installplan) or {}
  local plan = join(" ", "InstallPlan", str(ref.name))
  local target = current
  if target == "" then target = str(spec.name) end
  if target == "" then target = "the operator" end

  -- Failures OLM will not get past on its own.
  local failures = {
    {"InstallPlanFailed", plan .. " failed"},
    {"BundleUnpackFailed", "Bundle unpack failed"},
    {"ResolutionFailed", "Resolution failed"},
  }
  for _, f in ipairs(failures) do
    local c = conds[f[1]]
    if c ~= nil then return "Degraded", join(": ", f[2], detail(c, f[1])) end
  end
  if state == "UpgradeFailed" then
    return "Degraded", join(": ", "Upgrade to " .. target .. " failed", str(status.reason))
  end

  -- CatalogSourcesUnhealthy covers every catalog of the namespace and of the global
  -- catalog namespace; OLM updates its message only for the targeted one.
  local catalog = conds["CatalogSourcesUnhealthy"]
  local catalogText = ""
  if catalog ~= nil then
    catalogText = str(catalog.message)
    if catalogText == "all available catalogsources are healthy" then catalogText = "" end
    if catalogText == "" then
      local names = {}
      for _, h in ipairs(items(status.catalogHealth)) do
        local r = tbl(h.catalogSourceRef) or {}
        if h.healthy == false and str(r.name) ~= "" then
          names[#names + 1] = join("/", str(r.namespace), str(r.name))
        end
      end
      catalogText = table.concat(names, ", ")
    end
  end
  local warnings = {}
  if catalog ~= nil then
    warnings[#warnings + 1] = join(": ", "unhealthy catalog sources", catalogText)
  end
  if conds["Deprecated"] ~= nil then
    warnings[#warnings + 1] = join(": ", "deprecated", str(conds["Deprecated"].message))
  end
  local function withWarnings(msg)
    if #warnings == 0 then return msg end
    return msg .. "; " .. table.concat(warnings, "; ")
  end
  local action = "Installing " .. target
  if installed ~= "" and installed ~= current then
    action = "Upgrading " .. installed .. " to " .. target
  end

  local pending = conds["InstallPlanPending"]
  if pending ~= nil and str(pending.reason) == "RequiresApproval" then
    if installed ~= "" then
      return "Healthy", withWarnings(installed .. " is installed; the upgrade to " .. target ..
        " awaits manual approval of " .. plan)
    end
    return "Suspended", "Install of " .. target .. " awaits manual approval of " .. plan ..
      " (set spec.approved: true)"
  end

  local missing = conds["InstallPlanMissing"]
  if missing ~= nil and installed == "" then
    return "Degraded", join(": ", plan .. " is missing", detail(missing, "InstallPlanMissing"))
  end

  if pending ~= nil then
    local why = str(pending.reason)
    if why ~= "" then why = "(" .. why .. ")" end
    return "Progressing", join(": ", join(" ", action, "via", plan, why), str(pending.message))
  end
  local unpacking = conds["BundleUnpacking"]
  if unpacking ~= nil then
    return "Progressing", join(": ", "Unpacking the bundle of " .. target, str(unpacking.message))
  end

  if state == "AtLatestKnown" and installed ~= "" then
    return "Healthy", withWarnings(installed .. " is installed (AtLatestKnown)")
  end
  local manual = str(spec.installPlanApproval) == "Manual"
  if state == "UpgradeAvailable" and installed ~= "" and manual then
    return "Healthy", withWarnings(installed .. " is installed; " .. target .. " is available")
  end
  if installed == "" and catalog ~= nil and state ~= "UpgradePending" then
    return "Degraded", join(": ", "Catalog sources unhealthy and nothing installed", catalogText)
  end
  if state == "UpgradePending" then
    return "Progressing", withWarnings(join(" ", action, "via", plan))
  end
  if state == "UpgradeAvailable" then
    if installed ~= "" then
      return "Progressing", withWarnings(installed .. " is installed; upgrading to " .. target)
    end
    return "Progressing", withWarnings(target .. " is available")
  end
  if installed ~= "" then
    return "Progressing", withWarnings(installed .. " is installed; OLM is resolving updates")
  end
  return "Progressing", withWarnings(join(" ", "Waiting for OLM to resolve", str(spec.name)))
end
