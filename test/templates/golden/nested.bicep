param vnetName string = 'hub'

resource vnet 'Microsoft.Network/virtualNetworks@2022-01-01' = {
  name: vnetName
  location: resourceGroup().location
  properties: {
    addressSpace: {
      addressPrefixes: [
        '10.0.0.0/16'
      ]
    }
  }

  resource gateway 'subnets' = {
    name: 'GatewaySubnet'
    properties: {
      addressPrefix: '10.0.255.0/27'
    }
  }
}

output gatewayId string = gateway.id
output literal string = '[not an expression]'
output escaped string = 'it\'s ${vnetName}: {0} \${x}'
