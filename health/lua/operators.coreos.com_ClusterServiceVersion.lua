-- Argo CD health check for operators.coreos.com/ClusterServiceVersion (odlm-render, health/).
-- Succeeded is Healthy and Failed is Degraded (OLM's own verdicts). Pending, InstallReady and
-- Installing are Progressing, since OLM keeps retrying them, except for reasons that need a
-- change before OLM can go on (operator group problems, conflicts, invalid strategy), which
-- are Degraded in any phase. Replacing and Deleting (an old CSV during an upgrade) are
-- Progressing. Uses only Lua's base and table libraries and checks every field's type.

-- Reasons OLM sets when the CSV cannot install until something else changes.
local blocking = {
  OwnerConflict = true,
  InstallComponentFailedNoRetry = true,
  InvalidInstallStrategy = true,
  InvalidInstallModes = true,
  NoTargetNamespaces = true,
  UnsupportedOperatorGroup = true,
  NoOperatorGroup = true,
  TooManyOperatorGroups = true,
  InterOperatorGroupOwnerConflict = true,
  CannotModifyStaticOperatorGroupProvidedAPIs = true,
  InvalidWebhookDescription = true,
  APIServiceInstallFailed = true,
}

local progressing = {
  Pending = true,
  InstallReady = true,
  Installing = true,
  Replacing = true,
  Deleting = true,
}

-- Requirements (CRDs, APIs, permissions) that are not Present, at most three.
local function unmet(v)
  local names = {}
  for _, r in ipairs(items(v)) do
    local s = str(r.status)
    if s ~= "" and s ~= "Present" then
      names[#names + 1] = join(" ", join("/", str(r.kind), str(r.name)), s)
    end
  end
  if #names == 0 then return "" end
  return "unmet: " .. list(names, 3)
end

local function assess(obj)
  local status = tbl(obj.status)
  local phase = phaseOf(status)
  if phase == "" then
    return "Progressing", "Waiting for OLM to process the ClusterServiceVersion"
  end

  local reason = str(status.reason)
  local message = str(status.message)
  local head = phase
  if reason ~= "" then head = phase .. " (" .. reason .. ")" end
  local summary = join(": ", head, message)

  if phase == "Succeeded" then
    return "Healthy", summary
  end
  if phase == "Failed" or blocking[reason] then
    return "Degraded", summary
  end
  if phase == "Pending" and reason == "RequirementsNotMet" then
    return "Progressing", join("; ", summary, unmet(status.requirementStatus))
  end
  if progressing[phase] then
    return "Progressing", summary
  end
  if phase == "Unknown" then
    return "Unknown", summary
  end
  return "Unknown", "Unrecognised ClusterServiceVersion phase " .. phase
end
