-- Argo CD health check for operators.coreos.com/InstallPlan (odlm-render, health/).
-- Complete is Healthy, Failed is Degraded, Planning and Installing are Progressing, and
-- RequiresApproval is Suspended until someone sets spec.approved: true. InstallPlans are
-- created by OLM and owned by their Subscription, so Argo CD shows them in the resource
-- tree; the Subscription's own check decides whether a wave may go on.
-- Uses only Lua's base and table libraries and checks every field's type.

local function names(v)
  local out = strings(v)
  if #out == 0 then return "the planned operators" end
  return table.concat(out, ", ")
end

local function failure(status)
  local falses = conditions(status.conditions, "False")
  for _, ctype in ipairs({"Installed", "Resolved"}) do
    for _, c in ipairs(falses) do
      if str(c.type) == ctype then
        local text = detail(c)
        if text ~= "" then return text end
      end
    end
  end
  return str(status.message)
end

local function assess(obj)
  local spec = tbl(obj.spec) or {}
  local status = tbl(obj.status)
  local phase = phaseOf(status)
  local csvs = names(spec.clusterServiceVersionNames)

  if phase == "" then
    return "Progressing", "Waiting for OLM to plan the install of " .. csvs
  end
  if phase == "Complete" then
    return "Healthy", "Installed " .. csvs
  end
  if phase == "Failed" then
    return "Degraded", join(": ", "Install of " .. csvs .. " failed", failure(status))
  end
  if phase == "RequiresApproval" then
    if spec.approved == true then
      return "Progressing", "Approved; waiting for OLM to install " .. csvs
    end
    return "Suspended", "Install of " .. csvs .. " awaits manual approval (set spec.approved: true)"
  end
  if phase == "Planning" then
    return "Progressing", "Planning the install of " .. csvs
  end
  if phase == "Installing" then
    return "Progressing", join(": ", "Installing " .. csvs, str(status.message))
  end
  return "Unknown", "Unrecognised InstallPlan phase " .. phase
end
