-- Argo CD health check for operator.ibm.com/OperandConfig (odlm-render, health/), for
-- clusters that keep the ODLM controller. Running is Healthy, and so is Initialized: an
-- OperandConfig only holds configuration, and stays Initialized until an OperandRequest
-- asks for one of its services. Creating is Progressing; Failed is Degraded and names the
-- failed custom resources from status.serviceStatus.
-- Uses only Lua's base and table libraries and checks every field's type.

-- "service/resource" for every custom resource in the given phase, sorted.
local function inPhase(serviceStatus, wanted)
  local out = {}
  local services = tbl(serviceStatus) or {}
  for _, service in ipairs(keys(services)) do
    local crs = tbl((tbl(services[service]) or {}).customResourceStatus) or {}
    for _, cr in ipairs(keys(crs)) do
      if crs[cr] == wanted then out[#out + 1] = service .. "/" .. cr end
    end
  end
  return out
end

local function assess(obj)
  local status = tbl(obj.status)
  local phase = phaseOf(status)
  if phase == "" then
    return "Progressing", "Waiting for ODLM to reconcile the OperandConfig"
  end

  if phase == "Failed" then
    local failed = inPhase(status.serviceStatus, "Failed")
    if #failed == 0 then return "Degraded", "OperandConfig failed" end
    return "Degraded", "Failed: " .. list(failed)
  end
  if phase == "Running" then
    return "Healthy", "Running"
  end
  if phase == "Initialized" then
    return "Healthy", "Initialized; no requested operand is running yet"
  end
  if phase == "Creating" then
    local creating = inPhase(status.serviceStatus, "Creating")
    if #creating == 0 then return "Progressing", "Creating" end
    return "Progressing", "Creating: " .. list(creating)
  end
  return "Unknown", "Unrecognised OperandConfig phase " .. phase
end
