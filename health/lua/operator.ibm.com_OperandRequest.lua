-- Argo CD health check for operator.ibm.com/OperandRequest (odlm-render, health/), for
-- clusters that keep the ODLM controller. status.phase Running is Healthy, Failed is
-- Degraded, Pending/Creating/Installing/Updating are Progressing and name the members not
-- yet running. A member whose operator or operand is Failed, or "Not Found" in the
-- OperandRegistry, makes the request Degraded whatever the phase (ODLM leaves such members
-- out of its phase summary). Uses only Lua's base and table libraries and checks every
-- field's type.

local progressing = {Pending = true, Creating = true, Installing = true, Updating = true}

local function assess(obj)
  local status = tbl(obj.status)
  local phase = phaseOf(status)
  if phase == "" then
    return "Progressing", "Waiting for ODLM to reconcile the OperandRequest"
  end

  local members = items(status.members)
  local failed, missing, waiting = {}, {}, {}
  for _, m in ipairs(members) do
    local name = str(m.name)
    if name == "" then name = "(unnamed)" end
    local p = tbl(m.phase) or {}
    local operator, operand = str(p.operatorPhase), str(p.operandPhase)
    local phases = {}
    if operator ~= "" then phases[#phases + 1] = "operator " .. operator end
    if operand ~= "" then phases[#phases + 1] = "operand " .. operand end
    -- "name (operator Running, operand Creating)", listed at most five at a time
    local entry = name
    if #phases > 0 then entry = name .. " (" .. table.concat(phases, ", ") .. ")" end
    if operator == "Failed" or operand == "Failed" then
      failed[#failed + 1] = entry
    elseif operator == "Not Found" or operand == "Not Found" then
      missing[#missing + 1] = name
    elseif operator ~= "Running" or (operand ~= "" and operand ~= "Running") then
      waiting[#waiting + 1] = entry
    end
  end

  if #failed > 0 then
    return "Degraded", "Failed: " .. list(failed)
  end
  if phase == "Failed" then
    return "Degraded", "OperandRequest failed"
  end
  if #missing > 0 then
    return "Degraded", "Not found in the OperandRegistry: " .. list(missing)
  end
  if phase == "Running" then
    if #members == 0 then return "Healthy", "Running" end
    return "Healthy", #members .. " member(s) running"
  end
  if progressing[phase] then
    if #members == 0 then
      for _, c in ipairs(conditions(status.conditions, "True")) do
        local t = str(c.type)
        if t == "NotFound" or t == "OutofScope" then
          return "Degraded", join(": ", t, str(c.message))
        end
      end
      return "Progressing", phase
    end
    if #waiting == 0 then return "Progressing", phase end
    return "Progressing", phase .. ": waiting for " .. list(waiting)
  end
  return "Unknown", "Unrecognised OperandRequest phase " .. phase
end
